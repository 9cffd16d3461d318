#!/usr/bin/env bash
# BlobStream upload benchmark: one file streamed through BlobInputStream into an HTTP PUT, beside
# `curl -T` of the same file to the same server, in the same run.
#
#   bench/blobstream/run.sh [SIZE]        SIZE like 256M (default) or 4G
#   SERVER=serve bench/blobstream/run.sh  upload to `skylift serve --no-auth` (writes to disk) instead of
#                                         the in-memory sink (BlobStreamBench sink: bodies counted, dropped)
#
# BlobInputStream is driven two ways: URLSession (httpBodyStream) and HTTPClient's CurlTransport (libcurl
# pulling the stream through its read callback); Foundation's own InputStream(fileAtPath:) through URLSession
# is the control that tells URLSession's costs from the stream's. Rounds are interleaved (ROUNDS, default 3) and the best
# time of each counts, since the machine is shared; peak RSS is the highest seen. Prints MiB/s, the ratio
# to curl and peak RSS of each.
set -euo pipefail
. "$(dirname "$0")/../quiet.sh"
quiet_begin
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
    quiet_end
    rm -rf "$WORK"
    exec 3>&- 2>/dev/null || true
    if [ -n "$SERVER_PID" ]; then kill "$SERVER_PID" 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true; fi
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

ROUNDS=${ROUNDS:-3}
echo "file: $SIZE ($BYTES bytes), server: $SERVER at $BASE, best of $ROUNDS interleaved rounds"

# One upload; prints `<seconds> <peak RSS KiB>`. curl's RSS comes from /usr/bin/time, ours from the bench.
upload() {
    local how=$1 out
    if [ "$how" = curl-T ]; then
        out=$(/usr/bin/time -f '%M' -o "$WORK/curl.rss" \
            curl -sS -f -T "$FILE" "$BASE/curl.bin" -o /dev/null -w '%{size_upload} %{time_total}')
        set -- $out
        [ "$1" = "$BYTES" ] || { echo "curl sent $1 of $BYTES bytes" >&2; exit 1; }
        echo "$2 $(cat "$WORK/curl.rss")"
    else
        out=$("$BIN/BlobStreamBench" "$how" "$FILE" "$BASE/$how.bin")
        set -- $out
        [ "$2" = "$BYTES" ] || { echo "$how sent $2 of $BYTES bytes" >&2; exit 1; }
        echo "$3 $6"
    fi
    rm -f "$WORK"/root/*.bin
}

declare -A BEST RSS BASELINE
for _ in $(seq "$ROUNDS"); do
    for how in curl-T urlsession urlsession-control curl; do
        read -r secs rss < <(upload "$how")
        if [ -z "${BEST[$how]:-}" ] || awk -v a="$secs" -v b="${BEST[$how]}" 'BEGIN { exit !(a < b) }'; then
            BEST[$how]=$secs
        fi
        RSS[$how]=$(( ${RSS[$how]:-0} > rss ? ${RSS[$how]:-0} : rss ))
    done
done

# The same processes uploading 4 KiB: what Swift, Foundation(Networking) and libcurl cost before any streaming.
head -c 4096 /dev/urandom > "$WORK/tiny.bin"
for how in urlsession urlsession-control curl; do
    BASELINE[$how]=$("$BIN/BlobStreamBench" "$how" "$WORK/tiny.bin" "$BASE/tiny.bin" | awk '{ print $6 }')
done
rm -f "$WORK"/root/*.bin

mibs() { awk -v b="$BYTES" -v s="$1" 'BEGIN { printf "%.1f", b / 1048576 / s }'; }
for how in curl-T urlsession urlsession-control curl; do
    case $how in
        curl-T) label="curl -T" ;;
        urlsession) label="BlobInputStream+URLSession" ;;
        urlsession-control) label="Foundation stream+URLSession" ;;
        curl) label="BlobInputStream+CurlTransport" ;;
    esac
    ratio=$(awk -v a="${BEST[curl-T]}" -v b="${BEST[$how]}" 'BEGIN { printf "%.2f", a / b }')
    base=${BASELINE[$how]:+  (4 KiB upload: ${BASELINE[$how]} KiB)}
    printf '%-30s %8s MiB/s  %7.3f s  ratio %5s  peak RSS %6s KiB%s\n' \
        "$label" "$(mibs "${BEST[$how]}")" "${BEST[$how]}" "$ratio" "${RSS[$how]}" "$base"
done
