#!/usr/bin/env bash
# Upload benchmark: `skylift upload` (tus; default settings) vs `curl -T` (one WebDAV PUT) of the same file to
# the same embedded server (`skylift serve`) in the same run, root and source on tmpfs (/dev/shm) so the disk
# hides nothing; then a KILL_MIB file uploaded with default settings, killed twice (SIGKILL) and resumed,
# counting the request-body bytes the server received (its access log's in=) against the file size.
# Usage: bench/upload/run.sh [SIZE_MIB=1024] [RUNS=3] [PART=] [KILL_MIB=512]
#   PART: pass --part-size PART to skylift (default: none, the default settings).
#   SKYLIFT_BIN=path: run that binary (e.g. an older build, or the dynamic .build/release/skylift) instead of
#     building this tree's static binary (the one scripts/run.sh and scripts/install.sh build).
#   SETTLE=0: no wait and no memory warm-up before each timed run (see bench/settle.sh for why they are there).
#   RSS_ONLY=1: only peak memory: RUNS uploads, each one's peak RSS (VmHWM, /usr/bin/time %M), the lowest, and
#     `skylift --help` the same way; no curl and no kills. With DETAIL=1 as well, the upload's /proc/PID/smaps is
#     sampled every 50 ms and the fullest sample broken down: anonymous vs file-backed, then the largest mappings.
set -euo pipefail
. "$(dirname "$0")/../quiet.sh"
quiet_begin
cd "$(dirname "$0")/../.."
SIZE_MIB=${1:-1024}
RUNS=${2:-3}
PART=${3:-}
KILL_MIB=${4:-512}
# By default the binary users run: scripts/run.sh and scripts/install.sh build it with the Swift runtime linked in.
. bench/skylift.sh
skylift_bin
PART_ARGS=(); [ -n "$PART" ] && PART_ARGS=(--part-size "$PART")
WORK=$(mktemp -d /dev/shm/skylift-bench-upload.XXXXXX)
SERVE_PID=""
cleanup() { quiet_end; [ -n "$SERVE_PID" ] && kill "$SERVE_PID" 2>/dev/null; rm -rf "$WORK"; ! type settle_done &>/dev/null || settle_done; }
trap cleanup EXIT
mkdir -p "$WORK/root"
head -c $((SIZE_MIB << 20)) /dev/urandom > "$WORK/file.bin"
TOKEN=bench-token

skylift_serve "$WORK/root" "$TOKEN"

if [ "${RSS_ONLY:-0}" = 1 ]; then
    # Resident KiB per mapping of PID (a path's mappings summed; unnamed ones as [anon]); first line the totals.
    sample() {
        awk '/^[0-9a-f]+-[0-9a-f]+ / { name = (NF >= 6 ? $6 : "[anon]") }
             /^Rss:/ { rss[name] += $2; total += $2 }
             /^Anonymous:/ { anon += $2 }
             END { printf "total %d anon %d\n", total, anon; for (n in rss) if (rss[n] > 0) printf "%d %s\n", rss[n], n }' "/proc/$1/smaps" 2>/dev/null
    }
    lowest=0
    for i in $(seq "$RUNS"); do
        rm -rf "$WORK/root/sky" "$WORK/state"
        /usr/bin/time -f "%M" -o "$WORK/sky.rss" "$BIN" upload "$WORK/file.bin" --to "${URL}sky/" --token "$TOKEN" --state "$WORK/state" "${PART_ARGS[@]}" > /dev/null &
        timer=$!
        best=0
        while [ "${DETAIL:-0}" = 1 ] && kill -0 "$timer" 2>/dev/null; do
            pid=$(pgrep -P "$timer" | head -1 || true)
            if [ -n "$pid" ] && s=$(sample "$pid") && [ -n "$s" ]; then
                t=$(head -1 <<<"$s" | awk '{print $2}')
                [ "$t" -gt "$best" ] && { best=$t; echo "$s" > "$WORK/peak.smaps"; }
            fi
            sleep 0.05
        done
        wait "$timer"
        cmp -s "$WORK/file.bin" "$WORK/root/sky/file.bin" || { echo "skylift upload differs" >&2; exit 1; }
        r=$(cat "$WORK/sky.rss")
        echo "run $i: skylift upload peak RSS $r KiB"
        if [ "$lowest" = 0 ] || [ "$r" -lt "$lowest" ]; then lowest=$r; fi
        if [ "$best" -gt 0 ]; then
            head -1 "$WORK/peak.smaps" | awk '{ printf "  fullest smaps sample: %d KiB resident, %d KiB anonymous, %d KiB file-backed\n", $2, $4, $2 - $4 }'
            tail -n +2 "$WORK/peak.smaps" | sort -rn | head -16 | awk '{ printf "  %6d KiB  %s\n", $1, $2 }'
        fi
    done
    help=$(for _ in 1 2 3; do /usr/bin/time -f "%M" "$BIN" --help 2>&1 >/dev/null; done | sort -n | head -1)
    kib() { awk -v k="$1" 'BEGIN { printf "%d KiB (%.1f MiB)", k, k / 1024 }'; }
    echo "peak RSS, ${SIZE_MIB} MiB, lowest of $RUNS: skylift upload $(kib "$lowest")   skylift --help (lowest of 3) $(kib "$help")"
    exit 0
fi

now() { date +%s.%N; }
# Before each timed run, settle (bench/settle.sh says why); the order of curl and skylift alternates between runs.
. bench/settle.sh
settle_begin
rate() { awk -v s="$SIZE_MIB" -v a="$1" -v b="$2" 'BEGIN { printf "%.0f", s / (b - a) }'; }
median() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : int((v[NR / 2] + v[NR / 2 + 1]) / 2)) }'; }

run_curl() {
    rm -rf "$WORK/root/curl"
    curl -s -o /dev/null -X MKCOL -H "Authorization: Bearer $TOKEN" "${URL}curl/"
    settle "$SIZE_MIB"
    local t0 t1
    t0=$(now)
    /usr/bin/time -f "%M" -o "$WORK/curl.rss" curl -sf -o /dev/null -T "$WORK/file.bin" -H "Authorization: Bearer $TOKEN" "${URL}curl/file.bin"
    t1=$(now)
    c=$(rate "$t0" "$t1")
}
run_sky() {
    rm -rf "$WORK/root/sky" "$WORK/state"
    settle "$SIZE_MIB"
    local t0 t1
    t0=$(now)
    /usr/bin/time -f "%M" -o "$WORK/sky.rss" "$BIN" upload "$WORK/file.bin" --to "${URL}sky/" --token "$TOKEN" --state "$WORK/state" --json "${PART_ARGS[@]}" > "$WORK/sky.json"
    t1=$(now)
    cmp -s "$WORK/file.bin" "$WORK/root/sky/file.bin" || { echo "skylift upload differs" >&2; exit 1; }
    s=$(rate "$t0" "$t1")
}
# The same protocol by hand: curl creates a tus upload and sends the whole file in one checksummed PATCH (the
# digest computed by openssl inside the timing), so the server does what it does for skylift.
run_curl_tus() {
    rm -rf "$WORK/root/curltus"
    curl -s -o /dev/null -X MKCOL -H "Authorization: Bearer $TOKEN" "${URL}curltus/"
    settle "$SIZE_MIB"
    local t0 t1 sum loc
    t0=$(now)
    sum=$(openssl dgst -sha256 -binary "$WORK/file.bin" | base64)
    loc=$(curl -sf -D - -o /dev/null -X POST -H "Authorization: Bearer $TOKEN" -H "Tus-Resumable: 1.0.0" \
          -H "Upload-Length: $((SIZE_MIB << 20))" -H "Upload-Metadata: filename $(printf tus.bin | base64)" "${URL}curltus/" \
          | awk -F': ' 'tolower($1) == "location" { print $2 }' | tr -d '\r')
    case "$loc" in http*) ;; *) loc="${URL%/dav/}$loc" ;; esac
    curl -sf -o /dev/null -X PATCH -T "$WORK/file.bin" -H "Authorization: Bearer $TOKEN" -H "Tus-Resumable: 1.0.0" \
         -H "Upload-Offset: 0" -H "Content-Type: application/offset+octet-stream" -H "Upload-Checksum: sha256 $sum" "$loc"
    t1=$(now)
    ct=$(rate "$t0" "$t1")
}

best_curl=0; best_sky=0; sky_rss=0; curl_rss=0; all_curl=(); all_sky=()
for i in $(seq "$RUNS"); do
    if [ $((i % 2)) = 1 ]; then run_curl; run_sky; else run_sky; run_curl; fi
    run_curl_tus
    echo "run $i: curl -T $c MiB/s (rss $(cat "$WORK/curl.rss") KiB)   curl tus PATCH $ct MiB/s   skylift upload $s MiB/s (rss $(cat "$WORK/sky.rss") KiB)"
    all_curl+=("$c"); all_sky+=("$s")
    [ "$ct" -gt "${best_ctus:-0}" ] && best_ctus=$ct
    [ "$c" -gt "$best_curl" ] && best_curl=$c
    [ "$s" -gt "$best_sky" ] && best_sky=$s
    r=$(cat "$WORK/sky.rss"); [ "$r" -gt "$sky_rss" ] && sky_rss=$r
    r=$(cat "$WORK/curl.rss"); [ "$r" -gt "$curl_rss" ] && curl_rss=$r
done
echo "throughput, ${SIZE_MIB} MiB, ${PART:+--part-size $PART, }best of $RUNS: curl -T $best_curl MiB/s   skylift $best_sky MiB/s   ratio $(awk -v a="$best_sky" -v b="$best_curl" 'BEGIN { printf "%.2f", a / b }')"
mc=$(median "${all_curl[@]}"); ms=$(median "${all_sky[@]}")
echo "throughput, ${SIZE_MIB} MiB, median of $RUNS: curl -T $mc MiB/s   skylift $ms MiB/s   ratio $(awk -v a="$ms" -v b="$mc" 'BEGIN { printf "%.2f", a / b }')"
echo "same protocol: curl tus PATCH (sha256) $best_ctus MiB/s   skylift $best_sky MiB/s   ratio $(awk -v a="$best_sky" -v b="$best_ctus" 'BEGIN { printf "%.2f", a / b }')"
/usr/bin/time -f "%M" -o "$WORK/help.rss" "$BIN" --help > /dev/null
echo "peak RSS: skylift upload $((sky_rss / 1024)) MiB   skylift --help $(( $(cat "$WORK/help.rss") / 1024 )) MiB   curl $((curl_rss / 1024)) MiB"

# Killed twice, then resumed: kill when the server holds a third and two thirds.
rm -rf "$WORK/root/kill" "$WORK/state"
if [ "$KILL_MIB" -le "$SIZE_MIB" ]; then head -c $((KILL_MIB << 20)) "$WORK/file.bin" > "$WORK/kill.bin"; else head -c $((KILL_MIB << 20)) /dev/urandom > "$WORK/kill.bin"; fi
# Request-body bytes of every PATCH/PUT the server logged for the kill/ folder and its uploads, from line $1 on.
received() { tail -n +"$1" "$WORK/serve.log" | awk '$1 == "PATCH" || $1 == "PUT" || $1 == "POST" { sub("in=", "", $4); s += $4 } END { print s + 0 }'; }
from_line=$(( $(wc -l < "$WORK/serve.log") + 1 ))
total=$((KILL_MIB << 20))
server_holds() { stat -c %s "$WORK"/root/.skylift-uploads/*.data 2>/dev/null | sort -n | tail -1 || true; }
for fraction in 1 2; do
    : > "$WORK/kill.json"
    "$BIN" upload "$WORK/kill.bin" --to "${URL}kill/" --token "$TOKEN" --state "$WORK/state" --json "${PART_ARGS[@]}" > "$WORK/kill.json" &
    pid=$!
    # The server's data file of the upload says how far it got (polled every 10 ms).
    kill_when_grown "$pid" $((total * fraction / 3)) server_holds
    echo "kill $fraction at $b bytes on the server"
done
"$BIN" upload "$WORK/kill.bin" --to "${URL}kill/" --token "$TOKEN" --state "$WORK/state" --json "${PART_ARGS[@]}" > "$WORK/final.json"
cmp -s "$WORK/kill.bin" "$WORK/root/kill/kill.bin" || { echo "resumed upload differs" >&2; exit 1; }
sleep 0.5  # the access log line of the last request is written when its connection closes
got=$(received "$from_line")
echo "killed twice and resumed (${KILL_MIB} MiB${PART:+, --part-size $PART}): server read $got bytes for a $total-byte file, $(awk -v g="$got" -v t="$total" 'BEGIN { printf "%.2f%%", (g - t) * 100 / t }') re-sent (request bodies)"
grep '"event":"resumed"' "$WORK/final.json" || true
