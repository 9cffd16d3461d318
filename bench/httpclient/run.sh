#!/usr/bin/env bash
# HTTPClient throughput vs the curl CLI on loopback, both against the same nginx in the same run.
#   bench/httpclient/run.sh [SIZE_MIB] [ROUNDS]     (defaults: 1024 MiB, 3 rounds; best round counts)
# Download: GET of a file nginx serves from tmpfs. Upload: PUT of a tmpfs file to nginx's DAV module (tmpfs).
set -euo pipefail
. "$(dirname "$0")/../quiet.sh"
quiet_begin
cd "$(dirname "$0")/../.."
SIZE_MIB=${1:-1024}
ROUNDS=${2:-3}
WORK=$(mktemp -d /dev/shm/httpclient-bench.XXXXXX)
trap 'quiet_end; kill $(cat "$WORK/nginx.pid" 2>/dev/null) 2>/dev/null || true; rm -rf "$WORK"' EXIT

scripts/deps.sh nginx curl bc
swift build -c release --target SkyliftURLSessionHTTP >/dev/null
# The objects of the current sources only (a removed source file leaves its stale object behind).
objects() { for m in "$@"; do python3 -c 'import json,sys; print("\n".join(v["object"] for k, v in json.load(open(sys.argv[1])).items() if k.endswith(".swift") and "object" in v))' ".build/release/$m.build/output-file-map.json"; done; }
mapfile -t OBJECTS < <(objects SkyliftURLSessionHTTP SkyliftHTTPClient SkyliftCore SkyliftSystem)
swiftc -O -parse-as-library bench/httpclient/main.swift -module-name HTTPClientBench -I .build/release/Modules \
    -Xcc -fmodule-map-file=Sources/CCurl/module.modulemap \
    "${OBJECTS[@]}" -lcurl -o "$WORK/httpclient-bench"

mkdir -p "$WORK/www/in" "$WORK/tmp"
head -c $((SIZE_MIB << 20)) /dev/urandom > "$WORK/www/blob"
chmod -R a+rwX "$WORK"   # nginx's workers run as an unprivileged user
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat > "$WORK/nginx.conf" <<CONF
worker_processes 1;
daemon on;
pid $WORK/nginx.pid;
error_log $WORK/error.log;
events {}
http {
    access_log off;
    sendfile on;
    client_max_body_size 0;
    client_body_temp_path $WORK/tmp;
    server {
        listen 127.0.0.1:$PORT;
        root $WORK/www;
        location /in/ { dav_methods PUT; }
    }
}
CONF
nginx -c "$WORK/nginx.conf" -p "$WORK"
URL="http://127.0.0.1:$PORT"

now() { date +%s.%N; }
best() { # best (lowest) seconds over ROUNDS runs of "$@"
    local best_t=""
    for _ in $(seq "$ROUNDS"); do
        local t0 t1 t
        t0=$(now); "$@" >"$WORK/out"; t1=$(now)
        t=$(echo "$t1 - $t0" | bc -l)
        if [ -z "$best_t" ] || [ "$(echo "$t < $best_t" | bc -l)" = 1 ]; then best_t=$t; fi
    done
    echo "$best_t"
}
report() { # name seconds-peer seconds-ours
    local mibs_peer mibs_ours
    mibs_peer=$(echo "$SIZE_MIB / $2" | bc -l)
    mibs_ours=$(echo "$SIZE_MIB / $3" | bc -l)
    printf '%-28s curl %8.0f MiB/s   skylift %8.0f MiB/s   ratio %.2f\n' "$1" "$mibs_peer" "$mibs_ours" "$(echo "$mibs_ours / $mibs_peer" | bc -l)"
}

echo "loopback, ${SIZE_MIB} MiB, best of ${ROUNDS}"
peer=$(best curl -fsS -o /dev/null "$URL/blob")
ours=$(best "$WORK/httpclient-bench" get "$URL/blob" curl)
report "download CurlTransport" "$peer" "$ours"
ours=$(best "$WORK/httpclient-bench" get "$URL/blob" urlsession)
report "download URLSessionTransport" "$peer" "$ours"

peer=$(best curl -fsS -o /dev/null -T "$WORK/www/blob" "$URL/in/curl")
ours=$(best "$WORK/httpclient-bench" put "$URL/in/ours" "$WORK/www/blob" curl)
report "upload CurlTransport" "$peer" "$ours"
ours=$(best "$WORK/httpclient-bench" put "$URL/in/ours" "$WORK/www/blob" urlsession)
report "upload URLSessionTransport" "$peer" "$ours"
cmp -s "$WORK/www/blob" "$WORK/www/in/ours" || { echo "uploaded copy differs" >&2; exit 1; }
