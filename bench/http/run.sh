#!/usr/bin/env bash
# bench/http: request rate of `skylift serve` and `skylift proxy` for small requests, against nginx (and WsgiDAV
# for PROPFIND) started here on loopback, in the same run. Prints each figure beside its peer's and the ratio.
#   bench/http/run.sh                (ROUNDS=3 SECONDS_PER_RUN=10 IDLE=1000 SLOW=200; ONLY="1 3"; BIN=...)
# (1) GET of a 4 KiB file: wrk with keep-alive (8 and 64 connections), ab with a new connection per request
#     (against nginx as configured, and against the same nginx on a second port with `listen … deferred`, the
#     TCP_DEFER_ACCEPT that skylift's listening socket has on Linux);
# (2) PROPFIND Depth: 1 of a 1,000-entry folder: skylift serve vs WsgiDAV on cheroot (PyPI);
# (3) the proxy, warm cache: random 4 KiB ranges of a 64 MiB file vs nginx serving the file itself;
# (4) 1,000 idle keep-alive connections: rate of 8 active clients with them open / without, both servers;
#     then a client beyond skylift's connection limit (waits, or is refused?);
# (5) slowloris: SLOW connections dripping one byte of a request head every 2 s, rate of 8 active clients;
# (6) the proxy's time to first byte of a 1-byte range, cold (nothing cached), vs nginx directly, and how many
#     TCP connections the proxy opened to the origin for those cold starts (nginx's $connection serials);
# (7) FLOOD=10000 idle connections, then SLOW_FLOOD=1000 slowloris ones, all from 127.0.0.1, against skylift serve
#     and nginx: an ordinary client's GETs from the same address (new connection each), answered / reset / p99,
#     and skylift's RSS before and at its highest (goal: all answered, p99 <= 10 ms, RSS <= +40 MiB).
# Rates are requests/s; each figure is the median of ROUNDS runs, the servers taking turns within a round.
# ONLY="1 3" runs just those parts (all by default).
# Needs (installed here): nginx, wrk, apache2-utils (ab), curl, python3 with wsgidav + cheroot.
set -euo pipefail
. "$(dirname "$0")/../quiet.sh"
. "$(dirname "$0")/nginx.sh"
quiet_begin
cd "$(dirname "$0")/../.."
ROUNDS=${ROUNDS:-3}
SECS=${SECONDS_PER_RUN:-10}
IDLE=${IDLE:-1000}
SLOW=${SLOW:-200}
FLOOD=${FLOOD:-10000}
SLOW_FLOOD=${SLOW_FLOOD:-1000}
scripts/deps.sh nginx wrk apache2-utils curl >/dev/null
scripts/pip-deps.sh >/dev/null 2>&1 || true
python3 -c 'import wsgidav, cheroot' || { echo "needs wsgidav and cheroot (scripts/pip-deps.sh)" >&2; exit 1; }

# BIN=/path/to/skylift measures that binary instead of building this checkout's release one.
if [ -z "${BIN:-}" ]; then
    swift build -c release --product skylift >&2
    BIN="$(swift build -c release --show-bin-path)/skylift"
fi
CONNS="$PWD/bench/http/conns.py"
FLOODER="$PWD/bench/http/flood.py"

# tmpfs: the disk is not what this measures.
WORK=$(mktemp -d /dev/shm/skylift-bench-http.XXXXXX)
pids=()
holders=()
cleanup() {
    quiet_end
    for p in "${holders[@]}" "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    [ -f "$WORK/nginx/nginx.pid" ] && kill "$(cat "$WORK/nginx/nginx.pid")" 2>/dev/null || true
    wait 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT

wait_port() { for _ in $(seq 100); do curl -s -o /dev/null "http://127.0.0.1:$1/" && return 0; sleep 0.1; done; echo "nothing listens on $1" >&2; exit 1; }
median() { python3 -c 'import sys, statistics; m = statistics.median(float(x) for x in sys.argv[1:]); print(f"{m:.0f}" if m >= 100 else f"{m:.2f}")' "$@"; }
ratio() { python3 -c "print(f'{$1 / $2:.2f}')"; }
load() { cut -d' ' -f1 /proc/loadavg; }
want() { [ -z "${ONLY:-}" ] || [[ " $ONLY " == *" $1 "* ]]; }

mkdir -p "$WORK/www/list" "$WORK/www/ttfb" "$WORK/nginx/logs" "$WORK/nginx/tmp" "$WORK/cache"
head -c 4096 /dev/urandom > "$WORK/www/small.bin"
head -c $((64 << 20)) /dev/urandom > "$WORK/www/big.bin"
for i in $(seq 1000); do echo "entry $i" > "$WORK/www/list/file-$i.txt"; done
for i in $(seq 31); do head -c 1048576 /dev/urandom > "$WORK/www/ttfb/$i.bin"; done
chmod -R a+rwX "$WORK"

NGINX_PORT=$(free_port)
NGINX_DEFERRED_PORT=$(free_port)
nginx_start "$NGINX_PORT" "log_format conn '\$connection \$http_user_agent \$status \$bytes_sent';" \
    "listen 127.0.0.1:$NGINX_DEFERRED_PORT backlog=4096 deferred; location /ttfb/ { access_log $WORK/nginx/logs/ttfb.log conn; }"
NGINX="http://127.0.0.1:$NGINX_PORT"
NGINX_DEFERRED="http://127.0.0.1:$NGINX_DEFERRED_PORT"

SKY_PORT=$(free_port)
"$BIN" serve --root "$WORK/www" --listen "127.0.0.1:$SKY_PORT" --no-auth --quiet >/dev/null 2>&1 &
SKY_PID=$!
pids+=($SKY_PID)
SKY="http://127.0.0.1:$SKY_PORT/dav"

PROXY_PORT=$(free_port)
"$BIN" proxy --origin "$NGINX" --listen "127.0.0.1:$PROXY_PORT" --cache-dir "$WORK/cache" --max-cache-size 512M \
    --quiet >/dev/null 2>&1 &
pids+=($!)
PROXY="http://127.0.0.1:$PROXY_PORT"

DAV_PORT=$(free_port)
python3 - "$WORK/www" "$DAV_PORT" >/dev/null 2>&1 <<'PY' &
import sys, logging
from cheroot import wsgi
from wsgidav.wsgidav_app import WsgiDAVApp
logging.disable(logging.CRITICAL)
app = WsgiDAVApp({"provider_mapping": {"/": sys.argv[1]}, "simple_dc": {"user_mapping": {"*": True}},
                  "verbose": 0, "logging": {"enable": False}, "property_manager": True, "lock_storage": True})
wsgi.Server(("127.0.0.1", int(sys.argv[2])), app).safe_start()
PY
pids+=($!)
wait_port "$NGINX_PORT"; wait_port "$NGINX_DEFERRED_PORT"; wait_port "$SKY_PORT"; wait_port "$PROXY_PORT"; wait_port "$DAV_PORT"

cat > "$WORK/propfind.lua" <<'LUA'
wrk.method = "PROPFIND"
wrk.headers["Depth"] = "1"
wrk.headers["Content-Type"] = "application/xml"
wrk.body = '<?xml version="1.0" encoding="utf-8"?><propfind xmlns="DAV:"><allprop/></propfind>'
LUA
cat > "$WORK/ranges.lua" <<'LUA'
local blocks = (64 * 1048576) / 4096
request = function()
    local off = math.random(0, blocks - 1) * 4096
    return wrk.format("GET", nil, { ["Range"] = "bytes=" .. off .. "-" .. (off + 4095) })
end
LUA

# wrk's rate, refusing runs with socket errors or non-2xx answers (those are not the rate of working requests).
wrk_rate() {
    local out
    out=$(wrk "$@" 2>&1)
    if grep -qE "Non-2xx|Socket errors" <<<"$out"; then echo "wrk: $* reported errors:" >&2; echo "$out" >&2; echo 0; return; fi
    awk '/Requests\/sec/ {print $2}' <<<"$out"
}
ab_rate() {
    local out
    out=$(ab -q -t "$SECS" -n 10000000 -c 8 "$1" 2>&1)
    if ! grep -q "Failed requests:        0" <<<"$out"; then echo "ab $1 reported failures" >&2; fi
    awk '/Requests per second/ {print $4}' <<<"$out"
}
report() { # label, peer name, peer rates..., --, skylift rates...
    local label=$1 peer=$2; shift 2
    local p=() s=() into=p
    for x in "$@"; do if [ "$x" = -- ]; then into=s; elif [ $into = p ]; then p+=("$x"); else s+=("$x"); fi; done
    local pm sm; pm=$(median "${p[@]}"); sm=$(median "${s[@]}")
    printf '%-34s %-7s %8s   skylift %8s   ratio %s   (runs: %s | %s)\n' "$label" "$peer" "$pm" "$sm" "$(ratio "$sm" "$pm")" \
        "${p[*]}" "${s[*]}"
}

echo "bench/http: $ROUNDS rounds of ${SECS} s, load average at start $(load), $(nproc) cores"

if want 1; then
# (1) small GET
declare -a NG8 SK8 NG64 SK64 NGAB NGABD SKAB
for _ in $(seq "$ROUNDS"); do
    NG8+=("$(wrk_rate -t2 -c8 -d"${SECS}s" "$NGINX/small.bin")"); SK8+=("$(wrk_rate -t2 -c8 -d"${SECS}s" "$SKY/small.bin")")
    NG64+=("$(wrk_rate -t2 -c64 -d"${SECS}s" "$NGINX/small.bin")"); SK64+=("$(wrk_rate -t2 -c64 -d"${SECS}s" "$SKY/small.bin")")
    NGAB+=("$(ab_rate "$NGINX/small.bin")"); SKAB+=("$(ab_rate "$SKY/small.bin")")
    NGABD+=("$(ab_rate "$NGINX_DEFERRED/small.bin")")
done
echo "(1) GET 4 KiB, requests/s (goal: >= 1.0, aim 1.2), load average now $(load)"
report "    keep-alive, 8 connections" nginx "${NG8[@]}" -- "${SK8[@]}"
report "    keep-alive, 64 connections" nginx "${NG64[@]}" -- "${SK64[@]}"
report "    new connection each (ab -c 8)" nginx "${NGAB[@]}" -- "${SKAB[@]}"
report "      against nginx deferred" nginx-d "${NGABD[@]}" -- "${SKAB[@]}"
fi
if want 2; then
# (2) PROPFIND
[ "$(curl -s -o /dev/null -w '%{http_code}' -X PROPFIND -H 'Depth: 1' "$SKY/list/")" = 207 ] || { echo "skylift PROPFIND failed" >&2; exit 1; }
[ "$(curl -s -o /dev/null -w '%{http_code}' -X PROPFIND -H 'Depth: 1' "http://127.0.0.1:$DAV_PORT/list/")" = 207 ] || { echo "wsgidav PROPFIND failed" >&2; exit 1; }
declare -a DVPF SKPF
for _ in $(seq "$ROUNDS"); do
    DVPF+=("$(wrk_rate -t2 -c4 -d"${SECS}s" --timeout 30s -s "$WORK/propfind.lua" "http://127.0.0.1:$DAV_PORT/list/")")
    SKPF+=("$(wrk_rate -t2 -c4 -d"${SECS}s" --timeout 30s -s "$WORK/propfind.lua" "$SKY/list/")")
done
echo "(2) PROPFIND Depth 1, 1,000 entries, 4 connections, requests/s, load average now $(load)"
report "    allprop" wsgidav "${DVPF[@]}" -- "${SKPF[@]}"

fi
if want 3; then
# (3) proxy, warm
curl -sf -o /dev/null "$PROXY/big.bin"
cmp <(curl -sf "$PROXY/big.bin") "$WORK/www/big.bin" || { echo "proxy served different bytes" >&2; exit 1; }
declare -a NGR8 PXR8 NGR64 PXR64
for _ in $(seq "$ROUNDS"); do
    NGR8+=("$(wrk_rate -t2 -c8 -d"${SECS}s" -s "$WORK/ranges.lua" "$NGINX/big.bin")")
    PXR8+=("$(wrk_rate -t2 -c8 -d"${SECS}s" -s "$WORK/ranges.lua" "$PROXY/big.bin")")
    NGR64+=("$(wrk_rate -t2 -c64 -d"${SECS}s" -s "$WORK/ranges.lua" "$NGINX/big.bin")")
    PXR64+=("$(wrk_rate -t2 -c64 -d"${SECS}s" -s "$WORK/ranges.lua" "$PROXY/big.bin")")
done
echo "(3) proxy, warm cache: random 4 KiB ranges, keep-alive, requests/s (goal >= 0.9), load average now $(load)"
report "    8 connections" nginx "${NGR8[@]}" -- "${PXR8[@]}"
report "    64 connections" nginx "${NGR64[@]}" -- "${PXR64[@]}"

fi
if want 4; then
# (4) idle connections
hold_idle() { # port path count -> pid in HOLDER; waits until all are open
    coproc HOLD { python3 "$CONNS" idle 127.0.0.1 "$1" "$2" "$3"; }
    HOLDER=$HOLD_PID; HOLD_IN=${HOLD[1]}; holders+=("$HOLDER")
    read -r _ HELD <&"${HOLD[0]}"
}
release() { eval "exec ${HOLD_IN}>&-"; wait "$HOLDER" 2>/dev/null || true; }
rss_kib() { awk '/VmRSS/ {print $2}' "/proc/$1/status"; }
declare -a NGB NGI SKB SKI
for _ in $(seq "$ROUNDS"); do
    NGB+=("$(wrk_rate -t2 -c8 -d"${SECS}s" "$NGINX/small.bin")")
    hold_idle "$NGINX_PORT" /small.bin "$IDLE"; [ "$HELD" = "$IDLE" ] || echo "nginx held only $HELD idle" >&2
    NGI+=("$(wrk_rate -t2 -c8 -d"${SECS}s" "$NGINX/small.bin")"); release
    SKB+=("$(wrk_rate -t2 -c8 -d"${SECS}s" "$SKY/small.bin")")
    RSS_BEFORE=$(rss_kib "$SKY_PID")
    hold_idle "$SKY_PORT" /dav/small.bin "$IDLE"; [ "$HELD" = "$IDLE" ] || echo "skylift held only $HELD idle" >&2
    RSS_IDLE=$(rss_kib "$SKY_PID")
    SKI+=("$(wrk_rate -t2 -c8 -d"${SECS}s" "$SKY/small.bin")"); release
done
echo "(4) 8 active keep-alive clients, GET 4 KiB, requests/s without and with $IDLE idle keep-alive connections open (goal: cost <= 10%)"
for who in nginx skylift; do
    if [ $who = nginx ]; then b=$(median "${NGB[@]}"); i=$(median "${NGI[@]}"); else b=$(median "${SKB[@]}"); i=$(median "${SKI[@]}"); fi
    printf '    %-8s alone %8s   with idle %8s   kept %s   (cost %s%%)\n' $who "$b" "$i" "$(ratio "$i" "$b")" \
        "$(python3 -c "print(f'{(1 - $i / $b) * 100:.1f}')")"
done
echo "    skylift RSS $((RSS_BEFORE / 1024)) MiB before, $((RSS_IDLE / 1024)) MiB with $IDLE idle connections"
LIMIT=1000
hold_idle "$SKY_PORT" /dav/small.bin "$LIMIT"
AT_LIMIT=$(python3 "$CONNS" probe 127.0.0.1 "$SKY_PORT" /dav/small.bin 3)
release
sleep 2
echo "    skylift with $HELD idle connections from one address (its per-address cap $LIMIT), one more client: $AT_LIMIT"
echo "    ... and once those have closed: $(python3 "$CONNS" probe 127.0.0.1 "$SKY_PORT" /dav/small.bin 10)"

fi
if want 5; then
# (5) slowloris
declare -a SLB SLS
for _ in $(seq "$ROUNDS"); do
    SLB+=("$(wrk_rate -t2 -c8 -d"${SECS}s" "$SKY/small.bin")")
    coproc SL { python3 "$CONNS" slowloris 127.0.0.1 "$SKY_PORT" "$SLOW" 2; }
    SL_IN=${SL[1]}; SL_OUT=${SL[0]}; holders+=("$SL_PID")
    read -r _ _ <&"$SL_OUT"
    sleep 3
    SLS+=("$(wrk_rate -t2 -c8 -d"${SECS}s" "$SKY/small.bin")")
    eval "exec ${SL_IN}>&-"; read -r _ ALIVE <&"$SL_OUT"; wait "$SL_PID" 2>/dev/null || true
done
echo "(5) slowloris: $SLOW connections each sending one head byte every 2 s; skylift, 8 active clients, requests/s"
printf '    alone %8s   with slowloris %8s   kept %s   (slow connections still open at the end: %s)\n' \
    "$(median "${SLB[@]}")" "$(median "${SLS[@]}")" "$(ratio "$(median "${SLS[@]}")" "$(median "${SLB[@]}")")" "$ALIVE"

fi
if want 6; then
# (6) proxy cold time to first byte
ttfb() { curl -s -o /dev/null -r 0-0 -w '%{time_starttransfer}' "$1"; }
declare -a TN TP
: > "$WORK/nginx/logs/ttfb.log"
for i in $(seq 31); do
    TN+=("$(ttfb "$NGINX/ttfb/$i.bin")")
    TP+=("$(ttfb "$PROXY/ttfb/$i.bin")")
done
kill -USR1 "$(cat "$WORK/nginx/nginx.pid")"; sleep 0.3
# The proxy's origin requests carry no User-Agent (curl's direct ones do): count them and their connections.
ORIGIN_REQS=$(awk '$2 == "-"' "$WORK/nginx/logs/ttfb.log" | wc -l)
ORIGIN_CONNS=$(awk '$2 == "-" {print $1}' "$WORK/nginx/logs/ttfb.log" | sort -u | wc -l)
# A GET the proxy abandoned part-way (its reader left) ends its connection: count those.
ORIGIN_CUT=$(awk '$2 == "-" && $3 == 206 && $4 < 65536' "$WORK/nginx/logs/ttfb.log" | wc -l)
ms() { python3 -c 'import sys, statistics; v=[float(x)*1000 for x in sys.argv[1:]]; print(f"{statistics.median(v):.2f} ms (min {min(v):.2f})")' "$@"; }
echo "(6) time to first byte of a 1-byte range, 31 files, median"
echo "    nginx direct   $(ms "${TN[@]}")"
echo "    proxy cold     $(ms "${TP[@]}")"
echo "    the proxy sent the origin $ORIGIN_REQS requests for these 31 cold starts over $ORIGIN_CONNS TCP connections ($ORIGIN_CUT GETs cut short)"
fi
if want 7; then
# (7) floods from one address beside an ordinary client
NGINX_MASTER=$(cat "$WORK/nginx/nginx.pid")
echo "(7) an ordinary client (200 GETs of 4 KiB, a new connection each, 20 ms apart) beside a flood from the same address"
echo "    $FLOOD idle, skylift: $(python3 "$FLOODER" idle 127.0.0.1 "$SKY_PORT" /dav/small.bin "$FLOOD" 200 "$SKY_PID")"
sleep 2
echo "    $FLOOD idle, nginx:   $(python3 "$FLOODER" idle 127.0.0.1 "$NGINX_PORT" /small.bin "$FLOOD" 200 "$NGINX_MASTER" | sed 's/ rss .*//')"
sleep 2
echo "    $SLOW_FLOOD slowloris, skylift: $(python3 "$FLOODER" slowloris 127.0.0.1 "$SKY_PORT" /dav/small.bin "$SLOW_FLOOD" 200 "$SKY_PID")"
sleep 2
echo "    $SLOW_FLOOD slowloris, nginx:   $(python3 "$FLOODER" slowloris 127.0.0.1 "$NGINX_PORT" /small.bin "$SLOW_FLOOD" 200 "$NGINX_MASTER" | sed 's/ rss .*//')"
fi
echo "load average at end $(load)"
