#!/usr/bin/env bash
# bench/http/candidates: issue #28's HTTP core candidates, measured beside nginx and `skylift serve` in one run.
#   BIN=/path/to/release/skylift bench/http/candidates/run.sh     (ROUNDS=1 SECONDS_PER_RUN=5 AB_REQUESTS=20000)
# Servers, all on 127.0.0.1, serving one 4 KiB file of random bytes from tmpfs:
#   nginx         worker_processes auto, the settings of bench/http/run.sh;
#   h2o-static    libh2o's evloop with its file handler, one loop per core (h2o-static.c);
#   epoll-static  an epoll loop of our own in Swift over a minimal HTTP/1.1 parser, one per core (epoll-static.swift);
#   core-fixed    Skylift's HTTP core (SkyliftHTTPServer, libmicrohttpd) answering the file's bytes read once at
#                 start (core-fixed/): the core without the storage server's per-request work;
#   skylift       `$BIN serve --no-auth --quiet` (the file at /dav/small.bin), libmicrohttpd today.
# Measurements: wrk -t2 -c8 and wrk -t2 -c64 with keep-alive for SECONDS_PER_RUN seconds, and ab -c 8 with a new
# connection per request for AB_REQUESTS requests. Within each measurement the servers take turns (the order
# rotating by round), so drift hits all alike; each figure is the median of ROUNDS, each ratio is to nginx.
# Then each server's RSS. Every server must first answer the file with its exact bytes.
# Figures count only from a quiet machine (../../quiet.sh refuses load > 1 unless FORCE=1).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=../../quiet.sh
. "$(dirname "$0")/../../quiet.sh"
# shellcheck source=../nginx.sh
. "$(dirname "$0")/../nginx.sh"
quiet_begin
cd "$(dirname "$0")/../../.."
ROUNDS=${ROUNDS:-1}
SECS=${SECONDS_PER_RUN:-5}
AB_REQUESTS=${AB_REQUESTS:-20000}
THREADS=$(nproc)
scripts/deps.sh nginx wrk apache2-utils curl libh2o-evloop-dev >/dev/null

# BIN=/path/to/skylift measures that binary instead of building this checkout's release one.
if [ -z "${BIN:-}" ]; then
    swift build -c release --product skylift >&2
    BIN="$(swift build -c release --show-bin-path)/skylift"
fi
[ -x "$BIN" ] || { echo "$(basename "$0"): BIN=$BIN is not an executable" >&2; exit 1; }

# tmpfs: the disk is not what this measures.
WORK=$(mktemp -d /dev/shm/skylift-bench-candidates.XXXXXX)
pids=()
cleanup() {
    quiet_end
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    if [ -f "$WORK/nginx/nginx.pid" ]; then kill "$(cat "$WORK/nginx/nginx.pid")" 2>/dev/null || true; fi
    wait 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT

wait_port() { # port name
    for _ in $(seq 100); do curl -s -o /dev/null "http://127.0.0.1:$1/" && return 0; sleep 0.1; done
    echo "$(basename "$0"): $2 does not listen on 127.0.0.1:$1" >&2; exit 1
}
# A run that reported errors is recorded as "error"; a median over such a run is "error" too.
median() { python3 -c 'import sys, statistics; v = sys.argv[1:]; print("error" if "error" in v else f"{statistics.median(float(x) for x in v):.0f}")' "$@"; }
ratio() { python3 -c "import sys; a, b = sys.argv[1], sys.argv[2]; print('n/a' if 'error' in (a, b) else f'{float(a) / float(b):.2f}x')" "$1" "$2"; }
load() { cut -d' ' -f1 /proc/loadavg; }

mkdir -p "$WORK/bin" "$WORK/www" "$WORK/nginx/logs" "$WORK/nginx/tmp"
head -c 4096 /dev/urandom > "$WORK/www/small.bin"
chmod -R a+rwX "$WORK"

echo "building the candidates" >&2
HERE=bench/http/candidates
# shellcheck disable=SC2046 # pkg-config's flags are meant to split
cc -O2 -Wall -DH2O_USE_LIBUV=0 "$HERE/h2o-static.c" $(pkg-config --cflags --libs libh2o-evloop) -lpthread \
    -o "$WORK/bin/h2o-static"
swiftc -O -parse-as-library "$HERE/epoll-static.swift" -module-cache-path "$WORK/module-cache" \
    -o "$WORK/bin/epoll-static"
# Against this checkout's SkyliftHTTPServer, in a build folder of its own kept between runs.
swift build -c release --package-path "$HERE/core-fixed" --scratch-path .build/bench-core-fixed >&2
CORE_FIXED="$(swift build -c release --package-path "$HERE/core-fixed" --scratch-path .build/bench-core-fixed --show-bin-path)/core-fixed"

NGINX_PORT=$(free_port)
nginx_start "$NGINX_PORT"

H2O_PORT=$(free_port)
"$WORK/bin/h2o-static" "$WORK/www" "$H2O_PORT" "$THREADS" &
H2O_PID=$!
pids+=("$H2O_PID")

EPOLL_PORT=$(free_port)
"$WORK/bin/epoll-static" "$WORK/www" "$EPOLL_PORT" "$THREADS" &
EPOLL_PID=$!
pids+=("$EPOLL_PID")

CORE_PORT=$(free_port)
"$CORE_FIXED" "$WORK/www/small.bin" "$CORE_PORT" >/dev/null 2>&1 &
CORE_PID=$!
pids+=("$CORE_PID")

SKY_PORT=$(free_port)
"$BIN" serve --root "$WORK/www" --listen "127.0.0.1:$SKY_PORT" --no-auth --quiet >/dev/null 2>&1 &
SKY_PID=$!
pids+=("$SKY_PID")

wait_port "$NGINX_PORT" nginx
wait_port "$H2O_PORT" h2o-static
wait_port "$EPOLL_PORT" epoll-static
wait_port "$CORE_PORT" core-fixed
wait_port "$SKY_PORT" "skylift serve"
NGINX_MASTER=$(cat "$WORK/nginx/nginx.pid")

SERVERS=(nginx h2o-static epoll-static core-fixed skylift)
declare -A URL=(
    [nginx]="http://127.0.0.1:$NGINX_PORT/small.bin"
    [h2o-static]="http://127.0.0.1:$H2O_PORT/small.bin"
    [epoll-static]="http://127.0.0.1:$EPOLL_PORT/small.bin"
    [core-fixed]="http://127.0.0.1:$CORE_PORT/small.bin"
    [skylift]="http://127.0.0.1:$SKY_PORT/dav/small.bin"
)

# Every server must answer the exact bytes of the file, twice on one connection (keep-alive), before any figure.
for s in "${SERVERS[@]}"; do
    if ! curl -sf -o "$WORK/answer-1" "${URL[$s]}" -o "$WORK/answer-2" "${URL[$s]}" 2>/dev/null; then
        echo "$(basename "$0"): $s did not answer GET ${URL[$s]} with a 2xx" >&2; exit 1
    fi
    for copy in 1 2; do
        if ! cmp -s "$WORK/answer-$copy" "$WORK/www/small.bin"; then
            echo "$(basename "$0"): $s answered ${URL[$s]} with bytes other than the file's" >&2; exit 1
        fi
    done
    rm -f "$WORK"/answer-*
done
echo "all five servers answer the file with its exact bytes" >&2

# wrk's rate, refusing runs with socket errors or non-2xx answers (those are not the rate of working requests):
# such a run prints "error" and its output on stderr.
wrk_rate() {
    local out
    out=$(wrk "$@" 2>&1)
    if grep -qE "Non-2xx|Socket errors" <<<"$out"; then echo "wrk $* reported errors:" >&2; echo "$out" >&2; echo error; return; fi
    awk '/Requests\/sec/ {print $2}' <<<"$out"
}
ab_rate() {
    local out
    out=$(ab -q -c 8 -n "$AB_REQUESTS" "$1" 2>&1) || { echo "ab $1 failed:" >&2; echo "$out" >&2; echo error; return; }
    if ! grep -q "Failed requests:        0" <<<"$out" || grep -q "Non-2xx" <<<"$out"; then
        echo "ab $1 reported failed or non-2xx requests:" >&2; echo "$out" >&2; echo error; return
    fi
    awk '/Requests per second/ {print $4}' <<<"$out"
}

TESTS=(wrk8 wrk64 ab)
declare -A LABEL=(
    [wrk8]="keep-alive, 8 connections (wrk)"
    [wrk64]="keep-alive, 64 connections (wrk)"
    [ab]="new connection each (ab -c 8)"
)
measure() { # test url
    case $1 in
        wrk8) wrk_rate -t2 -c8 -d"${SECS}s" "$2" ;;
        wrk64) wrk_rate -t2 -c64 -d"${SECS}s" "$2" ;;
        ab) ab_rate "$2" ;;
    esac
}

echo "bench/http/candidates: GET of a 4 KiB file, $ROUNDS round(s), wrk ${SECS} s, ab $AB_REQUESTS requests, $THREADS cores," \
    "$THREADS loops each for h2o-static and epoll-static, load average now $(load)"
echo "nginx $(nginx -v 2>&1 | sed 's/.*nginx\///'), libh2o-evloop $(dpkg-query -W -f='${Version}' libh2o-evloop-dev)," \
    "swiftc $(swiftc --version 2>&1 | sed -n 's/.*Swift version \([^ ]*\).*/\1/p'), skylift $BIN"
declare -A RUNS=()
for round in $(seq "$ROUNDS"); do
    for t in "${TESTS[@]}"; do
        for i in "${!SERVERS[@]}"; do
            s=${SERVERS[$(((i + round - 1) % ${#SERVERS[@]}))]}
            RUNS[$t,$s]+="$(measure "$t" "${URL[$s]}") "
        done
    done
done

echo "requests/s, median of $ROUNDS; the ratio is to nginx in the same run (goal for skylift: >= 1.0x); load average now $(load)"
printf '    %-34s' ""
for s in "${SERVERS[@]}"; do printf ' %20s' "$s"; done
echo
for t in "${TESTS[@]}"; do
    # shellcheck disable=SC2086 # the runs are a space-separated list
    base=$(median ${RUNS[$t,nginx]})
    printf '    %-34s' "${LABEL[$t]}"
    for s in "${SERVERS[@]}"; do
        # shellcheck disable=SC2086
        m=$(median ${RUNS[$t,$s]})
        if [ "$s" = nginx ]; then printf ' %20s' "$m"; else printf ' %20s' "$m ($(ratio "$m" "$base"))"; fi
    done
    echo
done
if [ "$ROUNDS" -gt 1 ]; then
    echo "    runs:"
    for t in "${TESTS[@]}"; do
        for s in "${SERVERS[@]}"; do printf '      %-8s %-14s %s\n' "$t" "$s" "${RUNS[$t,$s]}"; done
    done
fi

rss_kib() { awk '/VmRSS/ {print $2}' "/proc/$1/status"; }
NGINX_RSS=$(( $(rss_kib "$NGINX_MASTER") + $(ps --ppid "$NGINX_MASTER" -o rss= | awk '{s += $1} END {print s + 0}') ))
mib() { python3 -c "print(f'{int(\"$1\") / 1024:.1f}')"; }
echo "RSS after the runs, MiB: nginx (master and $(ps --ppid "$NGINX_MASTER" -o pid= | wc -l) workers) $(mib "$NGINX_RSS")," \
    "h2o-static $(mib "$(rss_kib "$H2O_PID")"), epoll-static $(mib "$(rss_kib "$EPOLL_PID")"), core-fixed $(mib "$(rss_kib "$CORE_PID")"), skylift $(mib "$(rss_kib "$SKY_PID")")"
