#!/usr/bin/env bash
# bench/diskfull: what a full disk costs the link. `skylift serve` on a tmpfs of DISK_MIB (default 128) filled to
# FREE_MIB (default 20) free; then a SIZE_MIB (default 100) file is sent three ways, each counted:
#   1. curl -T (a WebDAV PUT of known length): the bytes the server read (its access log's in=) and curl sent;
#   2. the same PUT chunked (length unknown): likewise;
#   3. skylift upload (tus): the bytes the client sent in total before it reported the server full (a counting
#      relay), then, after the filler is removed, what the same command sent to finish.
# Usage: bench/diskfull/run.sh   (root: mounts a tmpfs). BIN=… uses a skylift built elsewhere.
set -euo pipefail
. "$(dirname "$0")/../quiet.sh"
quiet_begin
cd "$(dirname "$0")/../.."
[ "$(id -u)" = 0 ] || { echo "diskfull: needs root (mounts a tmpfs)" >&2; exit 1; }
SIZE_MIB=${SIZE_MIB:-100}
DISK_MIB=${DISK_MIB:-128}
FREE_MIB=${FREE_MIB:-20}
if [[ -z "${BIN:-}" ]]; then
    swift build -c release --product skylift >&2
    BIN="$(swift build -c release --show-bin-path)/skylift"
fi
WORK=$(mktemp -d /tmp/skylift-bench-diskfull.XXXXXX)
pids=()
cleanup() {
    quiet_end
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    wait 2>/dev/null || true
    umount "$WORK/root" 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT
mkdir -p "$WORK/root" "$WORK/state"
mount -t tmpfs -o size=${DISK_MIB}m tmpfs "$WORK/root"
head -c $(((DISK_MIB - FREE_MIB) << 20)) /dev/zero > "$WORK/root/filler.bin"
head -c $((SIZE_MIB << 20)) /dev/urandom > "$WORK/source.bin"
echo -n "bench-diskfull-$RANDOM$RANDOM" > "$WORK/token"; chmod 600 "$WORK/token"
"$BIN" serve --root "$WORK/root" --listen 127.0.0.1:0 --token-file "$WORK/token" > "$WORK/serve.out" 2> "$WORK/access.log" &
pids+=($!)
for _ in $(seq 100); do grep -q "url:" "$WORK/serve.out" 2>/dev/null && break; sleep 0.1; done
URL=$(awk '/url:/ { print $2 }' "$WORK/serve.out")
PORT=$(sed -E 's#.*:([0-9]+)/dav/#\1#' <<<"$URL")
AUTH="Authorization: Bearer $(cat "$WORK/token")"
mib() { awk -v b="$1" 'BEGIN { printf "%.2f MiB", b / 1048576 }'; }
server_in() { sleep 0.5; grep "$1" "$WORK/access.log" | sed -nE 's/.* in=([0-9]+) .*/\1/p' | awk '{ s += $1 } END { print s + 0 }'; }

echo "tmpfs ${DISK_MIB} MiB with ${FREE_MIB} MiB free; a ${SIZE_MIB} MiB file"
out=$(curl -s -o /dev/null -w "%{http_code} %{size_upload}" -H "$AUTH" -T "$WORK/source.bin" "${URL}sized.bin")
echo "PUT, Content-Length:    HTTP ${out% *}, curl sent $(mib "${out#* }"), server read $(mib "$(server_in 'PUT /dav/sized.bin')")"
out=$(curl -s -o /dev/null -w "%{http_code} %{size_upload}" -H "$AUTH" -H "Transfer-Encoding: chunked" -T "$WORK/source.bin" "${URL}chunked.bin")
echo "PUT, chunked:           HTTP ${out% *}, curl sent $(mib "${out#* }"), server read $(mib "$(server_in 'PUT /dav/chunked.bin')")"

python3 bench/diskfull/relay.py "$PORT" "$WORK/count" > "$WORK/relay.port" &
pids+=($!)
for _ in $(seq 50); do [ -s "$WORK/relay.port" ] && break; sleep 0.1; done
RELAY="http://127.0.0.1:$(cat "$WORK/relay.port")/dav/"
echo 0 > "$WORK/count"
set +e
SKYLIFT_TOKEN=$(cat "$WORK/token") "$BIN" upload "$WORK/source.bin" --to "$RELAY" --state "$WORK/state" > "$WORK/up1.out" 2> "$WORK/up1.err"
status=$?
set -e
first=$(cat "$WORK/count")
echo "skylift upload, full:   exit $status, sent $(mib "$first") in all; it said: $(tail -n 1 "$WORK/up1.err")"
rm -f "$WORK/root/filler.bin"
SKYLIFT_TOKEN=$(cat "$WORK/token") "$BIN" upload "$WORK/source.bin" --to "$RELAY" --state "$WORK/state" > "$WORK/up2.out" 2> "$WORK/up2.err"
second=$(( $(cat "$WORK/count") - first ))
cmp -s "$WORK/source.bin" "$WORK/root/source.bin" && same=identical || same=DIFFERENT
echo "skylift upload, freed:  sent $(mib "$second") more; the stored file is $same"
