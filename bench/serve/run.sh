#!/usr/bin/env bash
# bench/serve: `skylift serve` against nginx (WebDAV module) on loopback, in the same run.
#   GET of a SIZE_MIB file, PUT of the same file, and skylift's peak RSS while CLIENTS clients each PUT it at once.
# Usage: bench/serve/run.sh            (SIZE_MIB=1024 CLIENTS=8 by default; e.g. SIZE_MIB=64 for a quick try)
# Needs: nginx (Debian nginx-light), curl, python3. Builds skylift in release mode (BIN=… uses one built elsewhere).
set -euo pipefail
. "$(dirname "$0")/../quiet.sh"
quiet_begin
cd "$(dirname "$0")/../.."
SIZE_MIB=${SIZE_MIB:-1024}
CLIENTS=${CLIENTS:-8}
ROUNDS=${ROUNDS:-5}
scripts/deps.sh nginx-light curl >/dev/null

if [[ -z "${BIN:-}" ]]; then
    swift build -c release --product skylift >&2
    BIN="$(swift build -c release --show-bin-path)/skylift"
fi

WORK=$(mktemp -d /tmp/skylift-bench-serve.XXXXXX)
pids=()
cleanup() {
    quiet_end
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_port() { for _ in $(seq 100); do curl -s -o /dev/null "http://127.0.0.1:$1/" && return 0; sleep 0.1; done; echo "nothing listens on $1" >&2; exit 1; }

mkdir -p "$WORK/nginx-root" "$WORK/skylift-root" "$WORK/nginx/tmp" "$WORK/nginx/logs"
echo "creating a ${SIZE_MIB} MiB source file" >&2
head -c $((SIZE_MIB * 1024 * 1024)) /dev/urandom > "$WORK/source.bin"
# Both servers serve the same inode, so both GETs read the same page-cache state.
ln "$WORK/source.bin" "$WORK/nginx-root/file.bin"
ln "$WORK/source.bin" "$WORK/skylift-root/file.bin"

NGINX_PORT=$(free_port)
cat > "$WORK/nginx/nginx.conf" <<CONF
$( [ "$(id -u)" = 0 ] && echo "user root;" )
worker_processes auto;
pid $WORK/nginx/nginx.pid;
error_log $WORK/nginx/logs/error.log warn;
events { worker_connections 1024; }
http {
    access_log off;
    sendfile on;
    tcp_nopush on;
    client_max_body_size 0;
    client_body_temp_path $WORK/nginx-root/.tmp;
    server {
        listen 127.0.0.1:$NGINX_PORT;
        root $WORK/nginx-root;
        location / { dav_methods PUT DELETE MKCOL; create_full_put_path on; }
    }
}
CONF
mkdir -p "$WORK/nginx-root/.tmp"
nginx -c "$WORK/nginx/nginx.conf" -p "$WORK/nginx" -g 'daemon off;' &
pids+=($!)

SKY_PORT=$(free_port)
"$BIN" serve --root "$WORK/skylift-root" --listen "127.0.0.1:$SKY_PORT" --no-auth --quiet >/dev/null 2>&1 &
SKY_PID=$!
pids+=($SKY_PID)
wait_port "$NGINX_PORT"
wait_port "$SKY_PORT"

# Median of ROUNDS in bytes/s, the two servers taking turns so load from elsewhere hits both alike. On 2 cores a
# loopback transfer runs about twice as fast when the scheduler puts curl and the server on different cores, so
# single runs split into two groups; the median is the usual case, and every run is printed.
get() { curl -s -o /dev/null -w '%{speed_download}' "$1"; }
put() { curl -s -o /dev/null -T "$WORK/source.bin" -w '%{speed_upload}' "$1"; }
median() { python3 -c 'import sys, statistics; print(statistics.median(float(x) for x in sys.argv[1:]))' "$@"; }
mibs() { python3 -c "print(f'{$1 / 1048576:.0f}')"; }
runs() { python3 -c 'import sys; print(" ".join(f"{float(x) / 1048576:.0f}" for x in sys.argv[1:]))' "$@"; }
ratio() { python3 -c "print(f'{$1 / $2:.2f}')"; }
NG_GETS=() SK_GETS=() NG_PUTS=() SK_PUTS=()
for _ in $(seq "$ROUNDS"); do
    NG_GETS+=("$(get "http://127.0.0.1:$NGINX_PORT/file.bin")")
    SK_GETS+=("$(get "http://127.0.0.1:$SKY_PORT/dav/file.bin")")
    NG_PUTS+=("$(put "http://127.0.0.1:$NGINX_PORT/put.bin")")
    SK_PUTS+=("$(put "http://127.0.0.1:$SKY_PORT/dav/put.bin")")
done
NG_GET=$(median "${NG_GETS[@]}") SK_GET=$(median "${SK_GETS[@]}")
NG_PUT=$(median "${NG_PUTS[@]}") SK_PUT=$(median "${SK_PUTS[@]}")
cmp -s "$WORK/source.bin" "$WORK/skylift-root/put.bin" || { echo "skylift stored a different PUT body" >&2; exit 1; }

# Peak RSS of the skylift process while CLIENTS clients upload at once.
peak_file="$WORK/peak"
( peak=0; while kill -0 "$SKY_PID" 2>/dev/null; do
      r=$(awk '/VmRSS/ {print $2}' "/proc/$SKY_PID/status" 2>/dev/null || echo 0)
      (( r > peak )) && peak=$r && echo "$peak" > "$peak_file"
      sleep 0.1
  done ) &
sampler=$!
uploads=()
for i in $(seq "$CLIENTS"); do
    curl -s -o /dev/null -T "$WORK/source.bin" "http://127.0.0.1:$SKY_PORT/dav/par-$i.bin" &
    uploads+=($!)
done
start=$(date +%s.%N)
for u in "${uploads[@]}"; do wait "$u"; done
elapsed=$(python3 -c "print($(date +%s.%N) - $start)")
kill "$sampler" 2>/dev/null || true
PEAK_KIB=$(cat "$peak_file" 2>/dev/null || echo 0)
for i in $(seq "$CLIENTS"); do
    [ "$(stat -c %s "$WORK/skylift-root/par-$i.bin")" = "$(stat -c %s "$WORK/source.bin")" ] || { echo "parallel upload $i incomplete" >&2; exit 1; }
done

echo "serve bench: ${SIZE_MIB} MiB file, loopback, median of $ROUNDS"
printf '%-4s %14s %14s %8s\n' "" "nginx" "skylift" "ratio"
printf '%-4s %8s MiB/s %8s MiB/s %8s   (runs, MiB/s: %s | %s)\n' GET "$(mibs "$NG_GET")" "$(mibs "$SK_GET")" \
    "$(ratio "$SK_GET" "$NG_GET")" "$(runs "${NG_GETS[@]}")" "$(runs "${SK_GETS[@]}")"
printf '%-4s %8s MiB/s %8s MiB/s %8s   (runs, MiB/s: %s | %s)\n' PUT "$(mibs "$NG_PUT")" "$(mibs "$SK_PUT")" \
    "$(ratio "$SK_PUT" "$NG_PUT")" "$(runs "${NG_PUTS[@]}")" "$(runs "${SK_PUTS[@]}")"
echo "skylift peak RSS with $CLIENTS parallel ${SIZE_MIB} MiB PUTs: $((PEAK_KIB / 1024)) MiB ($(python3 -c "print(f'{$CLIENTS * $SIZE_MIB / $elapsed:.0f}')") MiB/s aggregate)"
