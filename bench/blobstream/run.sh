#!/usr/bin/env bash
# BlobStream upload benchmark: one file streamed through BlobInputStream into an HTTP PUT, beside
# `curl -T` of the same file to the same server, in the same run.
#
#   bench/blobstream/run.sh [SIZE]        SIZE like 256M (default) or 4G
#   SERVER=serve bench/blobstream/run.sh  upload to `skylift serve --no-auth` (writes to disk) instead of
#                                         the in-memory sink (BlobStreamBench sink: bodies counted, dropped)
#
# BlobInputStream is driven two ways: URLSession (httpBodyStream) and HTTPClient's CurlTransport (libcurl
# pulling the stream through its read callback). Prints MiB/s, the ratio to curl and peak RSS of each.
set -euo pipefail
cd "$(dirname "$0")/../.."
SIZE=${1:-256M}
SERVER=${SERVER:-sink}
BYTES=$(numfmt --from=iec "$SIZE")

swift build -c release --product BlobStreamBench >&2
[ "$SERVER" = serve ] && swift build -c release --product skylift >&2
BIN=$(swift build -c release --show-bin-path)

WORK=$(mktemp -d /var/tmp/blobstream-bench.XXXXXX)
SERVER_PID=""
cleanup() {
    exec 3>&- 2>/dev/null || true
    [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null && wait "$SERVER_PID" 2>/dev/null
    rm -rf "$WORK"
}
trap cleanup EXIT

FILE=$WORK/blob.bin
head -c "$BYTES" /dev/urandom > "$FILE"

if [ "$SERVER" = serve ]; then
    mkdir -p "$WORK/root"
    PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
    "$BIN/skylift" serve --no-auth --quiet --root "$WORK/root" --listen "127.0.0.1:$PORT" &
    SERVER_PID=$!
    BASE="http://127.0.0.1:$PORT/dav"
    for _ in $(seq 100); do curl -s -o /dev/null "$BASE/" && break; sleep 0.1; done
else
    mkfifo "$WORK/ctl"
    "$BIN/BlobStreamBench" sink < "$WORK/ctl" > "$WORK/url" &
    SERVER_PID=$!
    exec 3>"$WORK/ctl"
    for _ in $(seq 100); do [ -s "$WORK/url" ] && break; sleep 0.1; done
    BASE=$(cat "$WORK/url")
fi

echo "file: $SIZE ($BYTES bytes), server: $SERVER at $BASE"
# curl: -w gives bytes and seconds; /usr/bin/time gives its peak RSS (KiB).
read -r CURL_BYTES CURL_SECS < <(/usr/bin/time -f '%M' -o "$WORK/curl.rss" \
    curl -sS -f -T "$FILE" "$BASE/curl.bin" -o /dev/null -w '%{size_upload} %{time_total}\n')
[ "$CURL_BYTES" = "$BYTES" ] || { echo "curl sent $CURL_BYTES of $BYTES bytes" >&2; exit 1; }
CURL_MIBS=$(awk -v b="$BYTES" -v s="$CURL_SECS" 'BEGIN { printf "%.1f", b / 1048576 / s }')
rm -f "$WORK/root/curl.bin"
printf '%-26s %10s MiB/s  %8s s  ratio %5s  peak RSS %7s KiB\n' "curl -T" "$CURL_MIBS" "$CURL_SECS" "1.00" "$(cat "$WORK/curl.rss")"

for T in urlsession curl; do
    read -r _ GOT SECS MIBS STATUS RSS < <("$BIN/BlobStreamBench" "$T" "$FILE" "$BASE/$T.bin")
    [ "$GOT" = "$BYTES" ] || { echo "$T sent $GOT of $BYTES bytes" >&2; exit 1; }
    RATIO=$(awk -v a="$MIBS" -v b="$CURL_MIBS" 'BEGIN { printf "%.2f", a / b }')
    LABEL="BlobInputStream+$([ "$T" = curl ] && echo CurlTransport || echo URLSession)"
    printf '%-26s %10s MiB/s  %8s s  ratio %5s  peak RSS %7s KiB  (HTTP %s)\n' "$LABEL" "$MIBS" "$SECS" "$RATIO" "$RSS" "$STATUS"
    rm -f "$WORK/root/$T.bin"
done
