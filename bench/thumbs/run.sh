#!/usr/bin/env bash
# Thumbnails at scale: N twelve-megapixel JPEGs (default 1,000; 4000×3000) made once with ffmpeg and copied with a
# few bytes appended after the image (so every file's digest differs), then
#   1. `vipsthumbnail -s SIZE` over all of them (the peer: libvips' own tool, one process, its default threads),
#      and the same split into JOBS processes side by side (xargs -P), as a second peer;
#   2. `GET …?thumb=SIZE` of every file from `skylift serve` (JOBS keep-alive connections, bench/thumbs/fetch.py),
#      the server's peak RSS (VmHWM) after it;
#   3. the same thumbnails again, now cached, against a small static file of about the same size, as requests
#      per second.
# Prints the ratios: the goal is skylift ≤ 1.2× vipsthumbnail's time and a peak RSS ≤ 160 MiB.
# Usage: N=100 SIZE=256 JOBS=4 bench/thumbs/run.sh   (SKYLIFT_BIN=… to use a given binary; FORCE=1 on a busy machine)
set -euo pipefail
. "$(dirname "$0")/../quiet.sh"
. "$(dirname "$0")/../skylift.sh"
quiet_begin
cd "$(dirname "$0")/../.."
N=${N:-1000}
SIZE=${SIZE:-256}
JOBS=${JOBS:-$(( $(nproc) * 2 ))}
for p in vipsthumbnail ffmpeg python3 curl; do command -v "$p" >/dev/null || { echo "run.sh: needs $p (vipsthumbnail: apt-get install libvips-tools)" >&2; exit 2; }; done
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

# Cached thumbnails against a static file of the typical thumbnail's size, the same number of requests.
THUMB_BYTES=$(curl -s "${URL}photos/$(head -1 "$WORK/thumbs.txt" | sed 's#.*/##')" | wc -c)
head -c "$THUMB_BYTES" /dev/urandom > "$WORK/root/static.bin"
REQS=$(( N < 2000 ? 2000 : N ))
REPEAT=$(( (REQS + N - 1) / N ))
CACHED=$(python3 bench/thumbs/fetch.py 127.0.0.1 "$PORT" "$JOBS" "$WORK/thumbs.txt" "$REPEAT")
for _ in $(seq "$N"); do echo /dav/static.bin; done > "$WORK/static.txt"
STATIC=$(python3 bench/thumbs/fetch.py 127.0.0.1 "$PORT" "$JOBS" "$WORK/static.txt" "$REPEAT")
TOTAL=$(( N * REPEAT ))

python3 - <<PY
sky, peer, par = $SKY, $PEER, $PEER_PAR
print(f"make {$N} thumbnails: skylift serve {sky:.2f} s ({$N / sky:.1f}/s)   vipsthumbnail {peer:.2f} s   "
      f"vipsthumbnail ×{$JOBS} {par:.2f} s")
print(f"ratio skylift / vipsthumbnail {sky / peer:.2f}x (goal ≤ 1.2x)   skylift / vipsthumbnail ×{$JOBS} {sky / par:.2f}x")
print(f"server RSS: {$RSS_IDLE / 1024:.1f} MiB idle, peak {$PEAK / 1024:.1f} MiB (goal ≤ 160 MiB)")
c, s = $TOTAL / $CACHED, $TOTAL / $STATIC
print(f"cached thumbnails {c:.0f} req/s   static file of {$THUMB_BYTES} bytes {s:.0f} req/s   ratio {c / s:.2f}x  ({$TOTAL} requests each)")
PY
