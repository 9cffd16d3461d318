# Sourced by benchmarks that time the skylift binary against an embedded server.
#   skylift_bin: sets BIN to $SKYLIFT_BIN, or builds this tree's static binary (the one scripts/run.sh and
#     scripts/install.sh build, with the Swift runtime linked in) and points BIN at it.
#   skylift_serve ROOT TOKEN: starts `skylift serve` on a free loopback port (stdout in $WORK/serve.out, the access log
#     in $WORK/serve.log), sets SERVE_PID and URL (…/dav/).

skylift_bin() {
    if [ -n "${SKYLIFT_BIN:-}" ]; then
        BIN=$SKYLIFT_BIN
    else
        local build=(swift build -c release --static-swift-stdlib --scratch-path .build/static)
        "${build[@]}" --product skylift >/dev/null
        BIN="$("${build[@]}" --show-bin-path)/skylift"
    fi
}

skylift_serve() {
    "$BIN" serve --root "$1" --listen 127.0.0.1:0 --token "$2" > "$WORK/serve.out" 2> "$WORK/serve.log" &
    SERVE_PID=$!
    for _ in $(seq 50); do grep -q "url:" "$WORK/serve.out" 2>/dev/null && break; sleep 0.1; done
    URL=$(awk '/url:/ {print $2}' "$WORK/serve.out")
}

# kill_when_grown PID THRESHOLD MEASURE...: runs MEASURE (a command printing a byte count) every 10 ms until the
# count reaches THRESHOLD, then kills PID with SIGKILL and reaps it; sets b to the last count.
kill_when_grown() {
    local pid=$1 threshold=$2
    shift 2
    b=0
    while kill -0 "$pid" 2>/dev/null; do
        b=$("$@")
        [ -n "$b" ] && [ "$b" -ge "$threshold" ] && break
        sleep 0.01
    done
    kill -0 "$pid" 2>/dev/null || echo "warning: the run ended before its kill (at $b bytes)" >&2
    kill -9 "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
}
