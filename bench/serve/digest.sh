#!/usr/bin/env bash
# bench/serve/digest.sh: what recording digests costs a PUT. Two `skylift serve` on loopback in the same run:
# this tree's (records SHA-256 of every PUT, or the --digests given in DIGESTS) and BASE_BIN, a binary without
# digest recording (default: main's merge-base, release-built once into .build/bench-base from `git archive`).
# They take turns, ROUNDS rounds of one curl PUT of a SIZE_MIB file each; best of ROUNDS, and the ratio.
# Usage: bench/serve/digest.sh         (SIZE_MIB=1024 ROUNDS=5 DIGESTS=sha256 by default; ROOT=/dev/shm takes
#        the disk out, so the hashing cost shows against memory-speed writes; BIN=… uses a skylift built elsewhere)
set -euo pipefail
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

WORK=$(mktemp -d "${ROOT:-/tmp}/skylift-bench-digest.XXXXXX")
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_port() { for _ in $(seq 100); do curl -s -o /dev/null "http://127.0.0.1:$1/" && return 0; sleep 0.1; done; echo "nothing listens on $1" >&2; exit 1; }

mkdir -p "$WORK/with" "$WORK/base"
echo "creating a ${SIZE_MIB} MiB source file" >&2
head -c $((SIZE_MIB * 1024 * 1024)) /dev/urandom > "$WORK/source.bin"

WITH_PORT=$(free_port)
"$BIN" serve --root "$WORK/with" --listen "127.0.0.1:$WITH_PORT" --no-auth --quiet --digests "$DIGESTS" >/dev/null 2>&1 &
pids+=($!)
BASE_PORT=$(free_port)
"$BASE_BIN" serve --root "$WORK/base" --listen "127.0.0.1:$BASE_PORT" --no-auth --quiet >/dev/null 2>&1 &
pids+=($!)
wait_port "$WITH_PORT"
wait_port "$BASE_PORT"

put() { curl -s -o /dev/null -T "$WORK/source.bin" -w '%{speed_upload}' "$1"; }
max() { python3 -c "print(max($1, $2))"; }
mibs() { python3 -c "print(f'{$1 / 1048576:.0f}')"; }
WITH=0 BASE=0
for _ in $(seq "$ROUNDS"); do
    BASE=$(max "$BASE" "$(put "http://127.0.0.1:$BASE_PORT/dav/put.bin")")
    WITH=$(max "$WITH" "$(put "http://127.0.0.1:$WITH_PORT/dav/put.bin")")
done
cmp -s "$WORK/source.bin" "$WORK/with/put.bin" || { echo "skylift stored a different PUT body" >&2; exit 1; }
want=$(sha256sum "$WORK/source.bin" | cut -d' ' -f1)
got=$(curl -sI "http://127.0.0.1:$WITH_PORT/dav/put.bin" | tr -d '\r' | sed -n 's/^[Rr]epr-[Dd]igest: sha-256=:\(.*\):$/\1/p' | base64 -d | od -An -tx1 | tr -d ' \n')
[[ "$got" == "$want" ]] || { echo "the served digest ($got) is not the file's SHA-256 ($want)" >&2; exit 1; }

echo "digest bench: ${SIZE_MIB} MiB PUT, loopback, $(df -T "$WORK" | awk 'NR==2 {print $2}'), best of $ROUNDS"
printf '%-28s %8s MiB/s\n' "base (no digests)" "$(mibs "$BASE")"
printf '%-28s %8s MiB/s\n' "recording $DIGESTS" "$(mibs "$WITH")"
python3 -c "print(f'cost: {(1 - $WITH / $BASE) * 100:.1f}% of PUT throughput (goal <= 10%)')"
