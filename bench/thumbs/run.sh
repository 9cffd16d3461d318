#!/usr/bin/env bash
# Thumbnails at scale: N twelve-megapixel JPEGs (default 1,000; 4000×3000) made once with ffmpeg and copied with a
# few bytes appended after the image (so every file's digest differs), then
#   1. `vipsthumbnail -s SIZE` over all of them (the peer: libvips' own tool, one process, its default threads),
#      and the same split into JOBS processes side by side (xargs -P), as a second peer;
#   2. `GET …?thumb=SIZE` of every file from `skylift serve` (JOBS keep-alive connections, bench/thumbs/fetch.py),
#      the server's peak RSS (VmHWM) after it;
#   3. the same thumbnails again, now cached, against as many small static files of about the same size, as
#      requests per second (wrk; ROUNDS rounds of SECONDS_PER_RUN seconds, taking turns, median).
# Prints the ratios: the goal is skylift ≤ 1.2× vipsthumbnail's time and a peak RSS ≤ 160 MiB.
# Usage: N=100 SIZE=256 JOBS=4 ROUNDS=3 SECONDS_PER_RUN=5 bench/thumbs/run.sh   (SKYLIFT_BIN=… to use a given binary; FORCE=1 on a busy machine)
set -euo pipefail
. "$(dirname "$0")/../quiet.sh"
. "$(dirname "$0")/../skylift.sh"
quiet_begin
cd "$(dirname "$0")/../.."
N=${N:-1000}
SIZE=${SIZE:-256}
JOBS=${JOBS:-$(( $(nproc) * 2 ))}
for p in vipsthumbnail ffmpeg python3 curl wrk; do command -v "$p" >/dev/null || { echo "run.sh: needs $p (vipsthumbnail: apt-get install libvips-tools)" >&2; exit 2; }; done
skylift_bin
WORK=$(mktemp -d)
SERVE_PID=
trap 'quiet_end; [ -n "$SERVE_PID" ] && kill "$SERVE_PID" 2>/dev/null; rm -rf "$WORK"' EXIT
mkdir -p "$WORK/root/photos" "$WORK/peer" "$WORK/peer-par"

# One photo-like picture (ffmpeg's moving test pattern with noise, so the JPEG is as busy as a photo), then copies.
ffmpeg -hide_banner -loglevel error -f lavfi -i "testsrc2=size=4000x3000,noise=alls=20:allf=t" -frames:v 1 -q:v 3 \
    -update 1 "$WORK/seed.jpg"
for i in $(seq -w 1 "$N"); do
    cp "$WORK/seed.jpg" "$WORK/root/photos/p$i.jpg"
    printf '%s' "$i" >> "$WORK/root/photos/p$i.jpg"
done
echo "$N files of $(du -k "$WORK/seed.jpg" | cut -f1) KiB, 4000×3000; thumbnails of $SIZE px; $JOBS jobs; $(nproc) cores"
sync

now() { date +%s.%N; }
t0=$(now)
(cd "$WORK/root/photos" && vipsthumbnail -s "$SIZE" -o "$WORK/peer/%s.jpg" -- *.jpg)
t1=$(now)
(cd "$WORK/root/photos" && ls | xargs -P "$JOBS" -n 25 vipsthumbnail -s "$SIZE" -o "$WORK/peer-par/%s.jpg" --)
t2=$(now)
PEER=$(python3 -c "print(f'{$t1 - $t0:.2f}')")
PEER_PAR=$(python3 -c "print(f'{$t2 - $t1:.2f}')")

"$BIN" serve --root "$WORK/root" --listen 127.0.0.1:0 --no-auth --quiet --thumbnail-cache 4G > "$WORK/serve.out" 2> "$WORK/serve.log" &
SERVE_PID=$!
for _ in $(seq 100); do grep -q "url:" "$WORK/serve.out" 2>/dev/null && break; sleep 0.1; done
URL=$(awk '/url:/ {print $2}' "$WORK/serve.out")
PORT=$(sed -E 's#.*:([0-9]+)/dav/$#\1#' <<<"$URL")
ls "$WORK/root/photos" | sed "s#^#/dav/photos/#; s#\$#?thumb=$SIZE#" > "$WORK/thumbs.txt"
RSS_IDLE=$(awk '/VmRSS/ {print $2}' "/proc/$SERVE_PID/status")
SKY=$(python3 bench/thumbs/fetch.py 127.0.0.1 "$PORT" "$JOBS" "$WORK/thumbs.txt")
PEAK=$(awk '/VmHWM/ {print $2}' "/proc/$SERVE_PID/status")
MADE=$(find "$WORK/root/.skylift-thumbs" -name '*.jpg' | wc -l)
[ "$MADE" = "$N" ] || { echo "run.sh: $MADE thumbnails cached, expected $N" >&2; exit 1; }

# Cached thumbnails against small static files of the typical thumbnail's size, as many as there are photos
# (what a folder of ready-made thumbnails would be), at the same depth: wrk (JOBS connections, 2 threads) for
# SECONDS_PER_RUN seconds each, ROUNDS rounds taking turns, the median kept. wrk walks each list in turn, so both
# sides touch as many different files.
THUMB_BYTES=$(curl -s "${URL}photos/$(head -1 "$WORK/thumbs.txt" | sed 's#.*/##')" | wc -c)
mkdir "$WORK/root/small"
head -c "$THUMB_BYTES" /dev/urandom > "$WORK/small.bin"
for i in $(seq -w 1 "$N"); do cp "$WORK/small.bin" "$WORK/root/small/s$i.bin"; echo "/dav/small/s$i.bin"; done > "$WORK/static.txt"
rate() {  # rate LIST: requests per second; fails on any answer other than 2xx/3xx or any socket error
    local out
    out=$(wrk -t2 -c"$JOBS" -d"${SECONDS_PER_RUN:-5}s" -s bench/thumbs/paths.lua "http://127.0.0.1:$PORT" -- "$1")
    if grep -q "Non-2xx\|Socket errors" <<<"$out"; then echo "run.sh: wrk saw errors for $1:" >&2; echo "$out" >&2; exit 1; fi
    awk '/Requests\/sec/ {print $2}' <<<"$out"
}
CACHED_RATES=() STATIC_RATES=()
for _ in $(seq "${ROUNDS:-3}"); do
    CACHED_RATES+=("$(rate "$WORK/thumbs.txt")")
    STATIC_RATES+=("$(rate "$WORK/static.txt")")
done
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
CACHED=$(median "${CACHED_RATES[@]}")
STATIC=$(median "${STATIC_RATES[@]}")

python3 - <<PY
sky, peer, par = $SKY, $PEER, $PEER_PAR
print(f"make {$N} thumbnails: skylift serve {sky:.2f} s ({$N / sky:.1f}/s)   vipsthumbnail {peer:.2f} s   "
      f"vipsthumbnail ×{$JOBS} {par:.2f} s")
print(f"ratio skylift / vipsthumbnail {sky / peer:.2f}x (goal ≤ 1.2x)   skylift / vipsthumbnail ×{$JOBS} {sky / par:.2f}x")
print(f"server RSS: {$RSS_IDLE / 1024:.1f} MiB idle, peak {$PEAK / 1024:.1f} MiB (goal ≤ 160 MiB)")
c, s = $CACHED, $STATIC
print(f"cached thumbnails {c:.0f} req/s   {$N} static files of {$THUMB_BYTES} bytes {s:.0f} req/s   ratio {c / s:.2f}x  "
      f"(wrk, $JOBS connections, median of ${ROUNDS:-3} × ${SECONDS_PER_RUN:-5} s; rounds: ${CACHED_RATES[*]} / ${STATIC_RATES[*]})")
PY
