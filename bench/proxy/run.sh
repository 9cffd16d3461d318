#!/usr/bin/env bash
# skylift proxy vs an nginx origin that demands a header, both started here on loopback.
#   bench/proxy/run.sh [BIG_MIB] [ROUNDS] [MEDIA_SECONDS]    (defaults: 1024 MiB, 3 rounds, 60 s of video)
# (a) origin bytes (nginx $bytes_sent) while ffmpeg decodes a file once through the proxy, then again,
#     as multiples of the file size;
# (b) warm-cache GET throughput of a BIG_MIB file through the proxy vs from nginx directly (best of ROUNDS);
# (c) time to first byte (curl time_starttransfer; median and minimum of 31) of a 1-byte range: nginx directly,
#     through the proxy with nothing cached (content info + first block from the origin), and through the proxy
#     warm. The minimum shows the overhead when other load on the machine does not get in the way.
set -euo pipefail
. "$(dirname "$0")/../quiet.sh"
quiet_begin
cd "$(dirname "$0")/../.."
BIG_MIB=${1:-1024}
ROUNDS=${2:-3}
MEDIA_SECONDS=${3:-60}
WORK=$(mktemp -d /tmp/proxy-bench.XXXXXX)
cleanup() {
    quiet_end
    [ -n "${PROXY_PID:-}" ] && kill "$PROXY_PID" 2>/dev/null || true
    kill "$(cat "$WORK/nginx.pid" 2>/dev/null)" 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT

swift build -c release --product skylift >/dev/null
SKYLIFT=.build/release/skylift

mkdir -p "$WORK/www/ttfb" "$WORK/tmp" "$WORK/cache"
echo "making test media (${MEDIA_SECONDS}s 1280x720 mpeg4 + aac, index at the end) and a ${BIG_MIB} MiB file..." >&2
ffmpeg -v error -f lavfi -i "testsrc=duration=${MEDIA_SECONDS}:size=1280x720:rate=25" \
    -f lavfi -i "sine=frequency=440:duration=${MEDIA_SECONDS}" -c:v mpeg4 -q:v 4 -c:a aac -shortest "$WORK/www/media.mp4"
head -c $((BIG_MIB << 20)) /dev/urandom > "$WORK/www/big.bin"
for i in $(seq 31); do head -c 1048576 /dev/urandom > "$WORK/www/ttfb/$i.bin"; done
chmod -R a+rwX "$WORK"   # nginx's workers run as an unprivileged user

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
NGINX_PORT=$(free_port)
cat > "$WORK/nginx.conf" <<CONF
worker_processes 1;
daemon on;
pid $WORK/nginx.pid;
error_log $WORK/error.log;
events {}
http {
    log_format sent '\$bytes_sent';
    access_log $WORK/access.log sent;
    sendfile on;
    client_body_temp_path $WORK/tmp;
    server {
        listen 127.0.0.1:$NGINX_PORT;
        root $WORK/www;
        location / {
            if (\$http_x_bench_key != "k-42") { return 401; }
        }
    }
}
CONF
nginx -c "$WORK/nginx.conf" -p "$WORK"
ORIGIN="http://127.0.0.1:$NGINX_PORT"

PROXY_PORT=$(free_port)
"$SKYLIFT" proxy --origin "$ORIGIN" --header "X-Bench-Key: k-42" --listen "127.0.0.1:$PROXY_PORT" \
    --cache-dir "$WORK/cache" --max-cache-size $((BIG_MIB * 2 + 512))M --quiet >"$WORK/proxy.out" 2>"$WORK/proxy.err" &
PROXY_PID=$!
for _ in $(seq 100); do grep -q "url:" "$WORK/proxy.out" 2>/dev/null && break; sleep 0.1; done
PROXY="http://127.0.0.1:$PROXY_PORT"
[ "$(curl -s -o /dev/null -w '%{http_code}' "$ORIGIN/media.mp4")" = 401 ] || { echo "nginx does not demand the header" >&2; exit 1; }

origin_bytes() { awk '{s += $1} END {print s + 0}' "$WORK/access.log"; }
reset_log() { : > "$WORK/access.log"; kill -USR1 "$(cat "$WORK/nginx.pid")"; sleep 0.2; : > "$WORK/access.log"; }

# (a) origin traffic for a first and a second play
MEDIA_SIZE=$(stat -c %s "$WORK/www/media.mp4")
reset_log
ffmpeg -v error -i "$PROXY/media.mp4" -f null - 
FIRST=$(origin_bytes)
reset_log
ffmpeg -v error -i "$PROXY/media.mp4" -f null -
SECOND=$(origin_bytes)
echo "(a) media file $MEDIA_SIZE bytes, ffmpeg decoding it through the proxy"
printf '    first play   origin sent %12d bytes   %.4f x file   (goal <= 1.05)\n' "$FIRST" "$(echo "$FIRST / $MEDIA_SIZE" | bc -l)"
printf '    replay       origin sent %12d bytes   %.4f x file   (goal <= 0.01)\n' "$SECOND" "$(echo "$SECOND / $MEDIA_SIZE" | bc -l)"

# (b) warm-cache throughput
curl -s -o /dev/null "$PROXY/big.bin"   # fills the cache
best_speed() { # highest bytes/s over ROUNDS
    local best=0
    for _ in $(seq "$ROUNDS"); do
        local s; s=$(curl -s -o /dev/null -w '%{speed_download}' "$@")
        if [ "$(echo "$s > $best" | bc -l)" = 1 ]; then best=$s; fi
    done
    echo "$best"
}
NGINX_SPEED=$(best_speed -H "X-Bench-Key: k-42" "$ORIGIN/big.bin")
PROXY_SPEED=$(best_speed "$PROXY/big.bin")
echo "(b) ${BIG_MIB} MiB GET, best of ${ROUNDS}"
printf '    nginx direct %8.0f MiB/s   proxy warm %8.0f MiB/s   ratio %.2f   (goal >= 0.9)\n' \
    "$(echo "$NGINX_SPEED / 1048576" | bc -l)" "$(echo "$PROXY_SPEED / 1048576" | bc -l)" "$(echo "$PROXY_SPEED / $NGINX_SPEED" | bc -l)"

# (c) time to first byte
stats_ms() { sort -n | awk '{a[NR] = $1} END {printf "%.2f %.2f\n", a[int((NR + 1) / 2)] * 1000, a[1] * 1000}'; }
ttfb() { curl -s -o /dev/null -r 0-0 -w '%{time_starttransfer}\n' "$@"; }
read -r DIRECT DIRECT_MIN < <(for i in $(seq 31); do ttfb -H "X-Bench-Key: k-42" "$ORIGIN/ttfb/$i.bin"; done | stats_ms)
read -r COLD COLD_MIN < <(for i in $(seq 31); do ttfb "$PROXY/ttfb/$i.bin"; done | stats_ms)
read -r WARM WARM_MIN < <(for i in $(seq 31); do ttfb "$PROXY/ttfb/1.bin"; done | stats_ms)
echo "(c) time to first byte of a 1-byte range, median (min) of 31"
printf '    nginx direct %6s ms (%s)\n' "$DIRECT" "$DIRECT_MIN"
printf '    proxy cold   %6s ms (%s)   added %+.2f ms (%+.2f)   (goal <= +5 ms)\n' "$COLD" "$COLD_MIN" \
    "$(echo "$COLD - $DIRECT" | bc -l)" "$(echo "$COLD_MIN - $DIRECT_MIN" | bc -l)"
printf '    proxy warm   %6s ms (%s)   added %+.2f ms (%+.2f)   (goal <= +5 ms)\n' "$WARM" "$WARM_MIN" \
    "$(echo "$WARM - $DIRECT" | bc -l)" "$(echo "$WARM_MIN - $DIRECT_MIN" | bc -l)"
