#!/usr/bin/env bash
# Gallery goal: "the grid of a 1,000-photo folder shows its first screen of thumbnails within 1 s (warm
# cache), measured in Chromium". Makes N photos (default 1,000: 20 distinct 4000x3000 JPEGs made by ffmpeg,
# each copied under N/20 names with its own modification time, so every file is its own thumbnail), serves
# them with `skylift serve`, and in headless Chromium (1280x900, grid view) times from navigation start to
# the moment every tile of the first screen shows a loaded image (performance.now() in the page):
#   cold:            first visit, nothing cached anywhere (the server makes each thumbnail on demand)
#   warm server:     a fresh browser profile after that (the server's thumbnails made, the browser's cache empty)
#   warm browser:    a reload in that profile (thumbnails from the browser's cache: immutable, versioned URLs)
# Each warm figure is the median of 5. Also prints how many <img> the page holds (windowed: about a screenful),
# and the frame times while the grid is scrolled from top to bottom, 600 px a frame.
# Usage: bench/gallery/run.sh [N] [skylift binary]
set -euo pipefail
. "$(dirname "$0")/../quiet.sh"
quiet_begin
cd "$(dirname "$0")/../.."
N=${1:-1000}
BIN=${2:-.build/debug/skylift}
WORK=$(mktemp -d)
trap 'quiet_end; kill "$PID" 2>/dev/null || true; rm -rf "$WORK"' EXIT
mkdir -p "$WORK/store/photos" "$WORK/src"
for i in $(seq 1 20); do
    ffmpeg -loglevel error -y -f lavfi -i "gradients=size=4000x3000:seed=$i:n=4" -frames:v 1 -q:v 3 "$WORK/src/$i.jpg"
done
python3 - "$WORK/src" "$WORK/store/photos" "$N" <<'PY'
import os, shutil, sys
src, dst, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
for i in range(n):
    path = os.path.join(dst, f"IMG_{i:05d}.jpg")
    shutil.copyfile(os.path.join(src, f"{i % 20 + 1}.jpg"), path)
    t = 1_700_000_000 + i * 3600
    os.utime(path, (t, t))
PY
echo "photos: $N, $(du -sh "$WORK/store/photos" | cut -f1)"
printf 'bench-token\n' > "$WORK/token"
chmod 600 "$WORK/token"
"$BIN" serve --root "$WORK/store" --listen 127.0.0.1:0 --token-file "$WORK/token" --quiet > "$WORK/out" &
PID=$!
for _ in $(seq 50); do grep -q "open:" "$WORK/out" 2>/dev/null && break; sleep 0.1; done
# The server's base from the `url:` line (…/dav/); `open:` is a one-time sign-in link now.
URL=$(awk '/url:/ {print $2}' "$WORK/out"); URL=${URL%/dav/}
code=$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer bench-token" "$URL/dav/photos/IMG_00000.jpg?thumb=256")
ctype=$(curl -s -o /dev/null -w '%{content_type}' -H "Authorization: Bearer bench-token" "$URL/dav/photos/IMG_00000.jpg?thumb=256")
size=$(curl -s -H "Authorization: Bearer bench-token" "$URL/dav/photos/IMG_00000.jpg?thumb=256" | wc -c)
whole=$(stat -c %s "$WORK/store/photos/IMG_00000.jpg")
echo "?thumb=256 of one photo: HTTP $code, $ctype, $size bytes$([ "$size" = "$whole" ] && echo ' (the whole file: this server has no thumbnails)')"
SKYLIFT_TOKEN=bench-token python3 "$(dirname "$0")/measure.py" "$URL"
