# Sourced by bench scripts that measure one `skylift serve` process: builds skylift in release mode unless BIN
# is set, starts it with a token on a free loopback port over a scratch folder, and removes both on exit.
# Sets BIN, WORK (the scratch folder; the served root is $WORK/root), TOKEN, URL (of /dav/) and PID;
# mem prints the server's VmRSS and VmHWM. Call `start_serve NAME` after creating what $WORK/root should hold
# (mkdir -p "$WORK/root" is done by `scratch NAME` first).
scratch() {
    if [ -z "${BIN:-}" ]; then
        swift build -c release --product skylift >&2
        BIN="$(swift build -c release --show-bin-path)/skylift"
    fi
    WORK=$(mktemp -d "/tmp/skylift-bench-$1.XXXXXX")
    PID=
    trap '! type quiet_end &>/dev/null || quiet_end; if [ -n "$PID" ]; then kill "$PID" 2>/dev/null; fi; wait 2>/dev/null || true; rm -rf "$WORK"' EXIT
    mkdir -p "$WORK/root"
}

start_serve() {
    TOKEN="bench-$1-token"
    "$BIN" serve --root "$WORK/root" --listen 127.0.0.1:0 --token "$TOKEN" --quiet > "$WORK/out" 2>/dev/null &
    PID=$!
    for _ in $(seq 100); do grep -q '  url:' "$WORK/out" 2>/dev/null && break; sleep 0.1; done
    URL=$(sed -n 's/^  url: *//p' "$WORK/out")
}

mem() { awk '/VmRSS|VmHWM/{printf "%s %.1f MiB  ", $1, $2/1024}' "/proc/$PID/status"; echo; }
