#!/usr/bin/env bash
# bench/http/modes.sh: libmicrohttpd threading modes compared on one binary, same run, interleaved rounds:
# thread per connection (what HTTPServer uses) vs libmicrohttpd's own thread pool with epoll (2 threads).
#   BIN=/path/to/patched/skylift bench/http/modes.sh        (ROUNDS=3)
# HTTPServer has no switch for this; BIN must be built with a temporary patch (not committed) that makes
# HTTPServer.start use, when XMHD_POOL=N is set, MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL and
# MHD_OPTION_THREAD_POOL_SIZE N (passed through skylift_mhd_start) instead of MHD_USE_THREAD_PER_CONNECTION.
# Per mode: GET 4 KiB with keep-alive (wrk, 8 and 64 connections), a connection per request (ab -c 8), 8 clients
# with 1,000 idle keep-alive connections open (and RSS before/with them), and the proxy's warm 4 KiB ranges
# (8 clients) while one cold request blocks its handler 3 s on a slow origin (a Python server here).
set -euo pipefail
. "$(dirname "$0")/../quiet.sh"
quiet_begin
cd "$(dirname "$0")/../.."
BIN=${BIN:?set BIN to a skylift built with the XMHD_POOL patch}
ROUNDS=${ROUNDS:-3}
CONNS="$PWD/bench/http/conns.py"
WORK=$(mktemp -d /dev/shm/skylift-modes.XXXXXX)
pids=()
cleanup() { quiet_end; for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
mkdir -p "$WORK/www" "$WORK/origin"
head -c 4096 /dev/urandom > "$WORK/www/small.bin"
head -c $((8 << 20)) /dev/urandom > "$WORK/origin/warm.bin"
cat > "$WORK/ranges.lua" <<'LUA'
request = function()
    local off = math.random(0, 2047) * 4096
    return wrk.format("GET", nil, { ["Range"] = "bytes=" .. off .. "-" .. (off + 4095) })
end
LUA
ORIGIN_PORT=$(free_port)
python3 - "$WORK/origin" "$ORIGIN_PORT" >/dev/null 2>&1 <<'PY' &
import os, re, sys, time
from http.server import ThreadingHTTPServer, BaseHTTPRequestHandler
root = sys.argv[1]
class Origin(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *args): pass
    def answer(self, body):
        if self.path.startswith("/slow"): time.sleep(3)
        path = os.path.join(root, self.path.lstrip("/"))
        if not os.path.isfile(path):
            self.send_response(404); self.send_header("Content-Length", "0"); self.end_headers(); return
        data = open(path, "rb").read()
        m = re.match(r"bytes=(\d+)-(\d+)", self.headers.get("Range", ""))
        if m:
            a, b = int(m.group(1)), min(int(m.group(2)), len(data) - 1)
            self.send_response(206); self.send_header("Content-Range", f"bytes {a}-{b}/{len(data)}"); data = data[a:b + 1]
        else:
            self.send_response(200)
        self.send_header("Content-Length", str(len(data))); self.send_header("ETag", '"%d"' % os.stat(path).st_mtime_ns)
        self.end_headers()
        if body: self.wfile.write(data)
    def do_GET(self): self.answer(True)
    def do_HEAD(self): self.answer(False)
ThreadingHTTPServer(("127.0.0.1", int(sys.argv[2])), Origin).serve_forever()
PY
pids+=($!)
sleep 1
rate() { wrk "$@" 2>&1 | awk '/Requests\/sec/ {print $2}'; }
for round in $(seq "$ROUNDS"); do
    for mode in thread-per-connection pool2-epoll; do
        pool=0; [ $mode = pool2-epoll ] && pool=2
        port=$(free_port)
        XMHD_POOL=$pool "$BIN" serve --root "$WORK/www" --listen "127.0.0.1:$port" --no-auth --quiet >/dev/null 2>&1 &
        server=$!; sleep 0.7
        k8=$(rate -t2 -c8 -d8s "http://127.0.0.1:$port/dav/small.bin")
        k64=$(rate -t2 -c64 -d8s "http://127.0.0.1:$port/dav/small.bin")
        ab=$(ab -q -t 8 -n 10000000 -c 8 "http://127.0.0.1:$port/dav/small.bin" 2>&1 | awk '/Requests per second/ {print $4}')
        rss0=$(awk '/VmRSS/ {print $2}' "/proc/$server/status")
        coproc HOLD { python3 "$CONNS" idle 127.0.0.1 "$port" /dav/small.bin 1000; }
        read -r _ held <&"${HOLD[0]}"
        rss1=$(awk '/VmRSS/ {print $2}' "/proc/$server/status")
        idle=$(rate -t2 -c8 -d8s "http://127.0.0.1:$port/dav/small.bin")
        eval "exec ${HOLD[1]}>&-"; wait "$HOLD_PID" 2>/dev/null || true
        kill "$server"; wait "$server" 2>/dev/null || true
        port=$(free_port)
        XMHD_POOL=$pool "$BIN" proxy --origin "http://127.0.0.1:$ORIGIN_PORT" --listen "127.0.0.1:$port" \
            --cache-dir "$WORK/cache-$round-$mode" --quiet >/dev/null 2>&1 &
        proxy=$!; sleep 0.7
        curl -s -o /dev/null "http://127.0.0.1:$port/warm.bin"
        head -c 100000 /dev/urandom > "$WORK/origin/slow-$round-$mode.bin"
        ( sleep 1; curl -s -o /dev/null "http://127.0.0.1:$port/slow-$round-$mode.bin" ) & slow=$!
        blocked=$(rate -t2 -c8 -d6s -s "$WORK/ranges.lua" "http://127.0.0.1:$port/warm.bin")
        wait "$slow"; kill "$proxy"; wait "$proxy" 2>/dev/null || true
        echo "round $round $mode: keep-alive c8 $k8 c64 $k64, ab $ab | with $held idle: c8 $idle, RSS $((rss0 / 1024)) -> $((rss1 / 1024)) MiB" \
             "| proxy warm ranges c8 while a handler blocks 3 s: $blocked | load $(cut -d' ' -f1 /proc/loadavg)"
    done
done
