#!/usr/bin/env bash
# Download benchmark, all in one run against one embedded server (`skylift serve`, root and destinations on tmpfs
# /dev/shm so the disk hides nothing), printing ratios:
#   1. one SIZE_MIB file: `skylift download` vs `curl -o` vs `rclone copy` (WebDAV), best and median of RUNS,
#      interleaved; goals skylift/curl >= 0.9 and skylift/rclone >= 1.0; skylift's peak RSS (goal <= 32 MiB);
#   2. SMALL_FILES files of 4 KiB in one folder: `skylift download --jobs JOBS` vs `rclone copy --transfers JOBS`
#      (goal >= 1.0);
#   3. a KILL_MIB file downloaded with default settings, killed twice (SIGKILL at a third and two thirds) and run
#      again: the answer bytes that reached the client (a relay counts them) against the file size (goal <= 2%).
# Files are put through the server (PUT, then `skylift scrub` for the small ones), so it serves their SHA-256 and
# skylift checks every byte it downloads; curl and rclone check nothing.
# Usage: bench/download/run.sh [SIZE_MIB=1024] [RUNS=3] [SMALL_FILES=10000] [KILL_MIB=512] [JOBS=8]
#   SKYLIFT_BIN=path: run that binary instead of building this tree's static one (what scripts/run.sh builds).
#   SETTLE=0: no wait and no memory warm-up before each timed run (bench/settle.sh says why they are there).
# Only figures from a quiet machine count. A smoke run: bench/download/run.sh 8 1 50 16 4
set -euo pipefail
. "$(dirname "$0")/../quiet.sh"
quiet_begin
cd "$(dirname "$0")/../.."
SIZE_MIB=${1:-1024}
RUNS=${2:-3}
SMALL_FILES=${3:-10000}
KILL_MIB=${4:-512}
JOBS=${5:-8}
. bench/skylift.sh
skylift_bin
WORK=$(mktemp -d /dev/shm/skylift-bench-download.XXXXXX)
SERVE_PID=""
cleanup() { quiet_end; [ -n "$SERVE_PID" ] && kill "$SERVE_PID" 2>/dev/null; rm -rf "$WORK"; ! type settle_done &>/dev/null || settle_done; }
trap cleanup EXIT
mkdir -p "$WORK/root/big" "$WORK/root/small" "$WORK/root/kill"
TOKEN=bench-token
AUTH=(-H "Authorization: Bearer $TOKEN")
skylift_serve "$WORK/root" "$TOKEN"
RCLONE=(rclone --config /dev/null --webdav-url "$URL" --webdav-bearer-token "$TOKEN")

head -c $((SIZE_MIB << 20)) /dev/urandom > "$WORK/file.bin"
curl -sf -o /dev/null "${AUTH[@]}" -T "$WORK/file.bin" "${URL}big/file.bin"
rm -f "$WORK/file.bin"
python3 - "$WORK/root/small" "$SMALL_FILES" <<'PY'
import os, sys
for i in range(int(sys.argv[2])):
    with open(os.path.join(sys.argv[1], "f%05d.bin" % i), "wb") as f:
        f.write(os.urandom(4096))
PY
"$BIN" scrub --root "$WORK/root" > /dev/null   # records the small files' digests, as if they had been PUT

now() { date +%s.%N; }
. bench/settle.sh
settle_begin
rate() { awk -v s="$1" -v a="$2" -v b="$3" 'BEGIN { printf "%.0f", s / (b - a) }'; }
median() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : int((v[NR / 2] + v[NR / 2 + 1]) / 2)) }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
check() { cmp -s "$WORK/root/big/file.bin" "$1" || { echo "$2: downloaded file differs" >&2; exit 1; }; }

# One timed download of the big file by $1; sets r (MiB/s) and m (peak RSS KiB).
big() {
    rm -rf "$WORK/dest"; mkdir -p "$WORK/dest"
    settle "$SIZE_MIB"
    local t0 t1
    t0=$(now)
    case $1 in
        curl) /usr/bin/time -f "%M" -o "$WORK/rss" curl -sf "${AUTH[@]}" -o "$WORK/dest/file.bin" "${URL}big/file.bin" ;;
        rclone) /usr/bin/time -f "%M" -o "$WORK/rss" "${RCLONE[@]}" copy :webdav:big/file.bin "$WORK/dest" ;;
        skylift) /usr/bin/time -f "%M" -o "$WORK/rss" "$BIN" download "${URL}big/file.bin" "$WORK/dest" --token "$TOKEN" > /dev/null ;;
    esac
    t1=$(now)
    check "$WORK/dest/file.bin" "$1"
    r=$(rate "$SIZE_MIB" "$t0" "$t1"); m=$(cat "$WORK/rss")
}

declare -A ALL BEST RSS
for i in $(seq "$RUNS"); do
    order=(curl rclone skylift); [ $((i % 2)) = 0 ] && order=(skylift rclone curl)
    line="run $i:"
    for how in "${order[@]}"; do
        big "$how"
        ALL[$how]="${ALL[$how]:-} $r"
        [ "$r" -gt "${BEST[$how]:-0}" ] && BEST[$how]=$r
        [ "$m" -gt "${RSS[$how]:-0}" ] && RSS[$how]=$m
        line="$line  $how $r MiB/s (rss $((m / 1024)) MiB)"
    done
    echo "$line"
done
mc=$(median ${ALL[curl]}); mr=$(median ${ALL[rclone]}); ms=$(median ${ALL[skylift]})
echo "one ${SIZE_MIB} MiB file, best of $RUNS: curl -o ${BEST[curl]}  rclone copy ${BEST[rclone]}  skylift ${BEST[skylift]} MiB/s;" \
     "skylift/curl $(ratio "${BEST[skylift]}" "${BEST[curl]}") (goal >= 0.9)  skylift/rclone $(ratio "${BEST[skylift]}" "${BEST[rclone]}") (goal >= 1.0)"
echo "one ${SIZE_MIB} MiB file, median of $RUNS: curl -o $mc  rclone copy $mr  skylift $ms MiB/s;" \
     "skylift/curl $(ratio "$ms" "$mc")  skylift/rclone $(ratio "$ms" "$mr")"
echo "peak RSS: skylift download $((RSS[skylift] / 1024)) MiB (goal <= 32)  curl $((RSS[curl] / 1024)) MiB  rclone $((RSS[rclone] / 1024)) MiB"

# Many small files, same parallelism.
small() {
    rm -rf "$WORK/dest"; mkdir -p "$WORK/dest"
    settle 64
    local t0 t1
    t0=$(now)
    case $1 in
        rclone) "${RCLONE[@]}" copy :webdav:small "$WORK/dest" --transfers "$JOBS" --checkers "$JOBS" ;;
        skylift) "$BIN" download "${URL}small/" "$WORK/dest" --token "$TOKEN" --jobs "$JOBS" > /dev/null ;;
    esac
    t1=$(now)
    n=$(find "$WORK/dest" -type f | wc -l)
    [ "$n" = "$SMALL_FILES" ] || { echo "$1 brought back $n of $SMALL_FILES files" >&2; exit 1; }
    f=$(awk -v n="$SMALL_FILES" -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f", n / (b - a) }')
}
SF=(); RF=()
for i in $(seq "$RUNS"); do
    if [ $((i % 2)) = 1 ]; then small rclone; rf=$f; small skylift; sf=$f; else small skylift; sf=$f; small rclone; rf=$f; fi
    echo "run $i: $SMALL_FILES x 4 KiB: rclone copy --transfers $JOBS $rf files/s   skylift download --jobs $JOBS $sf files/s"
    SF+=("$sf"); RF+=("$rf")
done
echo "$SMALL_FILES x 4 KiB, median of $RUNS: skylift/rclone $(ratio "$(median "${SF[@]}")" "$(median "${RF[@]}")") (goal >= 1.0)"

# Killed twice at a third and two thirds of the partial file, then run to the end, through a relay that counts the
# answer bytes it hands to the client: the server's access log counts a cut answer's planned length, not what left.
head -c $((KILL_MIB << 20)) /dev/urandom > "$WORK/kill.bin"
curl -sf -o /dev/null "${AUTH[@]}" -T "$WORK/kill.bin" "${URL}kill/kill.bin"
rm -rf "$WORK/dest"; mkdir -p "$WORK/dest"
python3 - "${URL#http://}" > "$WORK/relay.out" <<'PY' &
import socket, sys, threading
host, port = sys.argv[1].split("/")[0].split(":")
listener = socket.socket(); listener.bind(("127.0.0.1", 0)); listener.listen(16)
print(listener.getsockname()[1], flush=True)
lock, counted = threading.Lock(), [0]
def pump(a, b, count):
    try:
        while True:
            data = a.recv(1 << 16)
            if not data: break
            b.sendall(data)
            if count:
                with lock:
                    counted[0] += len(data)
    except OSError: pass
    for s in (a, b):
        try: s.shutdown(socket.SHUT_RDWR)
        except OSError: pass
def report():
    while True:
        threading.Event().wait(0.2)
        with lock: print("answered", counted[0], flush=True)
threading.Thread(target=report, daemon=True).start()
while True:
    client, _ = listener.accept()
    # A small send buffer toward the client, so what is counted has left the relay, not waits in it.
    client.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 1 << 16)
    server = socket.create_connection((host, int(port)))
    threading.Thread(target=pump, args=(client, server, False), daemon=True).start()
    threading.Thread(target=pump, args=(server, client, True), daemon=True).start()
PY
RELAY_PID=$!
for _ in $(seq 50); do [ -s "$WORK/relay.out" ] && break; sleep 0.1; done
RELAY_URL="http://127.0.0.1:$(head -1 "$WORK/relay.out")/dav/"
answered() { sleep 0.5; tail -1 "$WORK/relay.out" | awk '{ print $2 }'; }
total=$((KILL_MIB << 20))
partial_holds() { stat -c %s "$WORK/dest/.kill.bin.skylift-part" 2>/dev/null || echo 0; }
for fraction in 1 2; do
    "$BIN" download "${RELAY_URL}kill/" "$WORK/dest" --token "$TOKEN" --json > /dev/null &
    kill_when_grown $! $((total * fraction / 3)) partial_holds
    echo "kill $fraction at $b bytes on disk"
done
"$BIN" download "${RELAY_URL}kill/" "$WORK/dest" --token "$TOKEN" --json > "$WORK/final.json"
cmp -s "$WORK/kill.bin" "$WORK/dest/kill.bin" || { echo "resumed download differs" >&2; exit 1; }
sent=$(answered)
kill "$RELAY_PID" 2>/dev/null || true
echo "killed twice and resumed (${KILL_MIB} MiB): $sent answer bytes reached the client for a $total-byte file," \
     "$(awk -v g="$sent" -v t="$total" 'BEGIN { printf "%.2f%%", (g - t) * 100 / t }') fetched twice, heads included (goal <= 2%)"
grep '"event":"resumed"' "$WORK/final.json" || true
