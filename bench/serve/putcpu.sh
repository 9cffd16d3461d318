#!/usr/bin/env bash
# bench/serve/putcpu.sh: where a PUT's time goes. For each `skylift` binary given, one `skylift serve` (root on
# tmpfs, no auth) and RUNS settled `curl -T` PUTs of a SIZE MiB file; per PUT the throughput, the server's user
# and system CPU seconds (from /proc/PID/stat around the PUT) and curl's (from /usr/bin/time), then each of the
# PUT's threads on its own (bench/serve/threadcpu.py).
# Each PUT is settled first (bench/settle.sh says why this VM needs it).
# CLIENT=sendfile or CLIENT=memory sends with bench/serve/put-client.py instead (its CPU where curl's was).
# Usage: [SIZE=1024] [RUNS=4] [CLIENT=curl] bench/serve/putcpu.sh BIN...
set -euo pipefail
. "$(dirname "$0")/../quiet.sh"
quiet_begin
SIZE=${SIZE:-1024}
RUNS=${RUNS:-4}
. "$(dirname "$0")/../settle.sh"
settle_begin
(($#)) || { echo "usage: bench/serve/putcpu.sh SKYLIFT_BINARY..." >&2; exit 2; }
WORK=$(mktemp -d /dev/shm/skylift-putcpu.XXXXXX)
SERVE_PID=""
cleanup() { quiet_end; [ -n "$SERVE_PID" ] && kill "$SERVE_PID" 2>/dev/null; rm -rf "$WORK"; settle_done; }
trap cleanup EXIT
CLIENT=${CLIENT:-curl}
if [[ "$CLIENT" == memory ]]; then
    "$(dirname "$0")/put-client.py" source "$WORK/source.bin" "$SIZE"
else
    head -c $((SIZE << 20)) /dev/urandom > "$WORK/source.bin"
fi
tick=$(getconf CLK_TCK)
for bin in "$@"; do
    mkdir -p "$WORK/root"
    "$bin" serve --root "$WORK/root" --listen 127.0.0.1:0 --no-auth > "$WORK/serve.out" 2>/dev/null &
    SERVE_PID=$!
    for _ in $(seq 50); do grep -q "url:" "$WORK/serve.out" 2>/dev/null && break; sleep 0.1; done
    url=$(awk '/url:/ {print $2}' "$WORK/serve.out")
    for _ in $(seq "$RUNS"); do
        rm -f "$WORK/root/put.bin"
        settle "$SIZE"
        "$(dirname "$0")/threadcpu.py" "$SERVE_PID" > "$WORK/threads" &
        sampler=$!
        sleep 0.2 # until the sampler has listed the threads there before the PUT
        before=$(awk '{print $14, $15}' "/proc/$SERVE_PID/stat")
        t0=$(date +%s.%N)
        if [[ "$CLIENT" == curl ]]; then
            /usr/bin/time -f "%U %S" -o "$WORK/client.cpu" curl -sf -o /dev/null -T "$WORK/source.bin" "${url}put.bin"
        else
            /usr/bin/time -f "%U %S" -o "$WORK/client.cpu" "$(dirname "$0")/put-client.py" "$CLIENT" "${url}put.bin" \
                "$WORK/source.bin" >/dev/null
        fi
        t1=$(date +%s.%N)
        after=$(awk '{print $14, $15}' "/proc/$SERVE_PID/stat")
        echo "$bin: $(awk -v s="$SIZE" -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f MiB/s", s / (b - a) }')" \
             "server $(echo "$after $before" | awk -v t="$tick" '{ printf "user %.2f s sys %.2f s", ($1 - $3) / t, ($2 - $4) / t }')" \
             "$CLIENT $(awk '{ printf "user %.2f s sys %.2f s", $1, $2 }' "$WORK/client.cpu")"
        kill "$sampler"; wait "$sampler" || true
        cat "$WORK/threads"
    done
    kill "$SERVE_PID"; wait "$SERVE_PID" 2>/dev/null || true; SERVE_PID=""
    rm -rf "$WORK/root"
done
