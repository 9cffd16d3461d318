#!/usr/bin/env bash
# Makes the web app's screenshots (shown in docs/serve.md) (docs/screenshots/*.png, light and -dark) with headless Chromium: a sample
# store (pictures and a clip made by ffmpeg), the real `skylift serve`, and scripts/screenshots.py driving it.
# Needs chromium, chromium-driver, ffmpeg (scripts/deps.sh) and selenium (scripts/pip-deps.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${SKYLIFT_BIN:-.build/debug/skylift}
[ -x "$BIN" ] || swift build --product skylift
WORK=$(mktemp -d)
trap 'kill "$PID" 2>/dev/null || true; rm -rf "$WORK"' EXIT
ROOT="$WORK/store"
mkdir -p "$ROOT/Pictures/2026 Lisbon" "$ROOT/Pictures/2025 Porto" "$ROOT/Videos" "$ROOT/Documents" "$ROOT/Music"
ff() { ffmpeg -loglevel error -y "$@"; }
i=0
for src in "testsrc=size=1280x853" "smptebars=size=1280x853" "mandelbrot=size=1280x853" "life=size=1280x853:mold=10:r=1" \
           "cellauto=size=1280x853:rule=110" "rgbtestsrc=size=1280x853" "testsrc2=size=1280x853" "yuvtestsrc=size=1280x853"; do
    i=$((i + 1))
    ff -f lavfi -i "$src" -frames:v 1 "$ROOT/Pictures/2026 Lisbon/IMG_20$((i + 10)).jpg"
    touch -d "2026-05-0$(( (i + 1) / 2 )) 1$i:00" "$ROOT/Pictures/2026 Lisbon/IMG_20$((i + 10)).jpg"
done
# Porto: colour gradients, a few a day over a week (the timeline groups them by day).
for i in $(seq 1 14); do
    ff -f lavfi -i "gradients=size=1024x768:seed=$i:n=3" -frames:v 1 "$ROOT/Pictures/2025 Porto/DSC_0$((i + 100)).jpg"
    touch -d "2025-09-$(( 10 + i / 3 )) 1$(( i % 10 )):00" "$ROOT/Pictures/2025 Porto/DSC_0$((i + 100)).jpg"
done
ff -f lavfi -i testsrc2=duration=6:size=640x360:rate=25 -f lavfi -i sine=frequency=440:duration=6 \
   -c:v libx264 -pix_fmt yuv420p -c:a aac -shortest "$ROOT/Videos/Tram 28 #2.mp4"
ff -f lavfi -i sine=frequency=330:duration=5 "$ROOT/Music/Fado ü.mp3"
printf 'Packing list\n' > "$ROOT/Documents/packing list.txt"
head -c 3000000 /dev/urandom > "$ROOT/Documents/backup 2026-11.tar"
printf '# Lisbon, May 2026\n\nThe **Tram 28** runs from *Martim Moniz* to Campo de Ourique.\n\n- Alfama in the morning\n- Belém: pastéis\n- Sintra (a day)\n\n> Take the `15E` to Belém.\n\nMore at [the city site](https://www.lisboa.pt/).\n' > "$ROOT/Trip notes.md"
TOKEN=$(head -c 18 /dev/urandom | od -An -tx1 | tr -d ' \n')
printf '%s\n' "$TOKEN" > "$WORK/token"
chmod 600 "$WORK/token"
"$BIN" serve --root "$ROOT" --listen 127.0.0.1:0 --token-file "$WORK/token" --quiet > "$WORK/out" &
PID=$!
for _ in $(seq 50); do grep -q "open:" "$WORK/out" 2>/dev/null && break; sleep 0.1; done
# The server's base from the `url:` line (…/dav/); `open:` is a one-time sign-in link now.
URL=$(awk '/url:/ {print $2}' "$WORK/out"); URL=${URL%/dav/}
SKYLIFT_TOKEN=$TOKEN python3 scripts/screenshots.py "$URL" "$ROOT" docs/screenshots
ls -l docs/screenshots
