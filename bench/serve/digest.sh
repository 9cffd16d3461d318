#!/usr/bin/env bash
# bench/serve/digest.sh: what recording digests costs a PUT. Release-built `skylift serve`s on loopback in the
# same run: this tree's (records SHA-256 of every PUT, or the --digests given in DIGESTS) and BASE_BIN, a binary
# without digest recording (default: main's merge-base, release-built once into .build/bench-base from
# `git archive`). With NOHASH=1 a third: this tree built with SKYLIFT_BENCH_NO_HASHING (.build/bench-nohash), the
# same write path with the hash left out, so a change to the write path is not read as a hashing win.
# They take turns, ROUNDS rounds of one curl PUT of a SIZE_MIB file each; best of ROUNDS (with the median and
# every round, to show the spread), and the ratios.
# Usage: bench/serve/digest.sh         (SIZE_MIB=1024 ROUNDS=5 DIGESTS=sha256 by default; ROOT=/dev/shm takes
#        the disk out, so the hashing cost shows against memory-speed writes; BIN=… uses a skylift built elsewhere;
#        CONTENT_DIGEST=1 sends the body's Content-Digest with every PUT, as `skylift upload` does over WebDAV;
#        BASE_LABEL names BASE_BIN in the output when it is not the merge-base; SETTLE=0: see bench/settle.sh;
#        CLIENT=sendfile or CLIENT=memory sends with bench/serve/put-client.py instead of `curl -T`, a client that
#        leaves the two cores to the servers, as a client on another machine would; see that file for the two;
#        each round's steal, the host's share of the machine's ticks during each PUT, is printed too, and the
#        median cost again over the rounds where it stayed at or under STEAL_MAX, 0.02 by default)
set -euo pipefail
. "$(dirname "$0")/../quiet.sh"
quiet_begin
cd "$(dirname "$0")/../.."
SIZE_MIB=${SIZE_MIB:-1024}
ROUNDS=${ROUNDS:-5}
DIGESTS=${DIGESTS:-sha256}
scripts/deps.sh curl >/dev/null

if [[ -z "${BIN:-}" ]]; then
    swift build -c release --product skylift >&2
    BIN="$(swift build -c release --show-bin-path)/skylift"
fi
if [[ -z "${BASE_BIN:-}" ]]; then
    base_rev=$(git merge-base HEAD main)
    base_dir=.build/bench-base/$base_rev
    if [[ ! -x "$base_dir/.build/release/skylift" ]]; then
        echo "building the base ($base_rev) in $base_dir" >&2
        mkdir -p "$base_dir"
        git archive "$base_rev" | tar -x -C "$base_dir"
        (cd "$base_dir" && swift build -c release --product skylift >&2)
    fi
    BASE_BIN=$base_dir/.build/release/skylift
fi
if [[ "${NOHASH:-0}" == 1 && -z "${NOHASH_BIN:-}" ]]; then
    swift build -c release --product skylift --scratch-path .build/bench-nohash -Xswiftc -DSKYLIFT_BENCH_NO_HASHING >&2
    NOHASH_BIN="$(swift build -c release --scratch-path .build/bench-nohash --show-bin-path)/skylift"
fi

WORK=$(mktemp -d "${ROOT:-/tmp}/skylift-bench-digest.XXXXXX")
pids=()
cleanup() {
    quiet_end
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$WORK"
    ! type settle_done &>/dev/null || settle_done
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_port() { for _ in $(seq 100); do curl -s -o /dev/null "http://127.0.0.1:$1/" && return 0; sleep 0.1; done; echo "nothing listens on $1" >&2; exit 1; }

echo "creating a ${SIZE_MIB} MiB source file" >&2
if [[ "${CLIENT:-curl}" == memory ]]; then
    bench/serve/put-client.py source "$WORK/source.bin" "$SIZE_MIB"
else
    head -c $((SIZE_MIB * 1024 * 1024)) /dev/urandom > "$WORK/source.bin"
fi
headers=()
if [[ "${CONTENT_DIGEST:-0}" == 1 ]]; then
    headers=(-H "Content-Digest: sha-256=:$(python3 -c 'import sys, base64; print(base64.b64encode(bytes.fromhex(sys.argv[1])).decode())' "$(sha256sum "$WORK/source.bin" | cut -d' ' -f1)"):")
fi

# name label binary [serve options…]: starts one server; its port goes into PORT_<name>.
names=() labels=()
start() {
    local name=$1 label=$2 bin=$3 port
    shift 3
    mkdir -p "$WORK/$name"
    port=$(free_port)
    "$bin" serve --root "$WORK/$name" --listen "127.0.0.1:$port" --no-auth --quiet "$@" >/dev/null 2>&1 &
    pids+=($!)
    wait_port "$port"
    printf -v "PORT_$name" '%s' "$port"
    printf -v "BEST_$name" '%s' 0
    names+=("$name") labels+=("$label")
}
start base "${BASE_LABEL:-base (no digests)}" "$BASE_BIN"
[[ -n "${NOHASH_BIN:-}" ]] && start nohash "this tree, hashing left out" "$NOHASH_BIN"
start with "recording $DIGESTS" "$BIN" --digests "$DIGESTS"

# Before each PUT, settle (bench/settle.sh says why).
. bench/settle.sh
settle_begin
# The host's share of this VM's time: steal and all ticks, from /proc/stat's cpu line.
ticks() { awk '/^cpu / { print $9, $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9 }' /proc/stat; }
# put URL: prints the PUT's speed and the share of the machine's ticks the host took meanwhile (steal).
put() {
    settle "$SIZE_MIB"
    local before after speed
    before=$(ticks)
    if [[ "${CLIENT:-curl}" != curl ]]; then
        speed=$(bench/serve/put-client.py "$CLIENT" "$1" "$WORK/source.bin" "${headers[@]:1}")
    else
        speed=$(curl -s -o /dev/null "${headers[@]}" -T "$WORK/source.bin" -w '%{speed_upload}' "$1")
    fi
    after=$(ticks)
    echo "$speed $before $after" | awk '{ printf "%s %.4f\n", $1, ($4 - $2) / (($5 - $3) > 0 ? ($5 - $3) : 1) }'
}
max() { python3 -c "print(max($1, $2))"; }
mibs() { python3 -c "print(f'{$1 / 1048576:.0f}')"; }
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
for round in $(seq "$ROUNDS"); do
    # Every other round in reverse order: a PUT right after another one's fsync and rename (which frees the old
    # 1 GiB file's blocks) starts on a busier disk, and no server should always get that place.
    order=("${names[@]}")
    if ((round % 2 == 0)); then order=(); for ((i = ${#names[@]} - 1; i >= 0; i--)); do order+=("${names[$i]}"); done; fi
    for n in "${order[@]}"; do
        port_var=PORT_$n best_var=BEST_$n
        # The last round's file goes first, outside the timing: freeing 1 GiB inside a PUT's rename is not
        # what this measures.
        rm -f "$WORK/$n/put.bin"
        read -r speed steal < <(put "http://127.0.0.1:${!port_var}/dav/put.bin")
        steal_var=STEAL_$n
        printf -v "$steal_var" '%s' "${!steal_var:-} $steal"
        printf -v "$best_var" '%s' "$(max "${!best_var}" "$speed")"
        all_var=ALL_$n
        printf -v "$all_var" '%s' "${!all_var:-} $speed"
    done
done
cmp -s "$WORK/source.bin" "$WORK/with/put.bin" || { echo "skylift stored a different PUT body" >&2; exit 1; }
want=$(sha256sum "$WORK/source.bin" | cut -d' ' -f1)
got=$(curl -sI "http://127.0.0.1:$PORT_with/dav/put.bin" | tr -d '\r' | sed -n 's/^[Rr]epr-[Dd]igest: sha-256=:\(.*\):$/\1/p' | base64 -d | od -An -tx1 | tr -d ' \n')
[[ "$got" == "$want" ]] || { echo "the served digest ($got) is not the file's SHA-256 ($want)" >&2; exit 1; }

echo "digest bench: ${SIZE_MIB} MiB PUT${headers:+ with Content-Digest} (client: ${CLIENT:-curl}), loopback, $(df -T "$WORK" | awk 'NR==2 {print $2}'), best of $ROUNDS; load $load_before -> $(cut -d' ' -f1-3 /proc/loadavg)"
for i in "${!names[@]}"; do
    best_var=BEST_${names[$i]}
    all_var=ALL_${names[$i]}
    printf '%-30s %8s MiB/s   (median %s; every round: %s)\n' "${labels[$i]}" "$(mibs "${!best_var}")" \
        "$(python3 -c "import statistics, sys; print(f'{statistics.median(map(float, sys.argv[1:])) / 1048576:.0f}')" ${!all_var})" \
        "$(python3 -c "import sys; print(' '.join(f'{float(v) / 1048576:.0f}' for v in sys.argv[1:]))" ${!all_var})"
done
# Best of each against best of each, and the median of the rounds' own costs: the two PUTs of one round ran
# seconds apart, so what the machine did over minutes cancels out of their ratio.
# Rounds where the host took more than STEAL_MAX (default 2%) of either PUT's ticks are counted apart: a
# round where one PUT lost a sixth of the machine to another guest measures the host, not the hash.
python3 - "$ALL_base" "$ALL_with" "$STEAL_base" "$STEAL_with" "${STEAL_MAX:-0.02}" <<'PY'
import statistics, sys
base, with_, steal_base, steal_with = ([float(v) for v in a.split()] for a in sys.argv[1:5])
limit = float(sys.argv[5])
rounds = [(1 - w / b) * 100 for b, w in zip(base, with_)]
print(f"cost: {(1 - max(with_) / max(base)) * 100:.1f}% of the base PUT throughput, best of each "
      f"(goal <= 10%); median of the rounds' own costs {statistics.median(rounds):.1f}% "
      f"(every round: {' '.join(f'{c:.0f}' for c in rounds)})")
print(f"steal, % of each round's ticks (base/with): "
      f"{' '.join(f'{b * 100:.0f}/{w * 100:.0f}' for b, w in zip(steal_base, steal_with))}")
quiet = [c for c, b, w in zip(rounds, steal_base, steal_with) if b <= limit and w <= limit]
if quiet:
    print(f"rounds where the host took <= {limit * 100:.0f}% of both PUTs' ticks: {len(quiet)} of {len(rounds)}, "
          f"median cost {statistics.median(quiet):.1f}%")
else:
    print(f"no round where the host took <= {limit * 100:.0f}% of both PUTs' ticks")
PY
if [[ -n "${NOHASH_BIN:-}" ]]; then
    python3 -c "print(f'hashing alone: {(1 - $BEST_with / $BEST_nohash) * 100:.1f}% of this tree\'s PUT throughput without it')"
fi
