#!/usr/bin/env bash
# Web app at scale: a folder of N files (default 10,000) served by `skylift serve`. Prints the time of the JSON
# listing (curl, best of 5) beside nginx's autoindex JSON of the same folder (the peer, same run), then, in
# headless Chromium, the time from opening the folder to its rows on screen, the number of row elements in the
# page, and the time to scroll to the end. Usage: bench/webapp/run.sh [N] [skylift binary]
set -euo pipefail
. "$(dirname "$0")/../quiet.sh"
quiet_begin
cd "$(dirname "$0")/../.."
N=${1:-10000}
BIN=${2:-.build/debug/skylift}
WORK=$(mktemp -d)
trap 'quiet_end; kill "$PID" 2>/dev/null || true; [ -n "${NGINX:-}" ] && kill "$NGINX" 2>/dev/null; rm -rf "$WORK"' EXIT
mkdir -p "$WORK/store/big"
python3 - "$WORK/store/big" "$N" <<'PY'
import os, sys
d, n = sys.argv[1], int(sys.argv[2])
for i in range(n):
    with open(os.path.join(d, f"photo {i:05d} #ü.jpg"), "wb") as f:
        f.write(b"x" * (i % 1000))
PY
printf 'bench-token\n' > "$WORK/token"
chmod 600 "$WORK/token"  # serve refuses a token file others can read
"$BIN" serve --root "$WORK/store" --listen 127.0.0.1:0 --token-file "$WORK/token" --quiet > "$WORK/out" &
PID=$!
for _ in $(seq 50); do grep -q "open:" "$WORK/out" 2>/dev/null && break; sleep 0.1; done
# The server's base from the `url:` line (…/dav/); `open:` is a one-time sign-in link now.
URL=$(awk '/url:/ {print $2}' "$WORK/out"); URL=${URL%/dav/}
best() { local b=999; for _ in 1 2 3 4 5; do t=$(curl -s -o /dev/null -w '%{time_total}' "$@"); b=$(python3 -c "print(min($b, $t))"); done; echo "$b"; }
[ "$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer bench-token" "$URL/dav/big/?list")" = 200 ] || { echo "skylift listing failed" >&2; exit 1; }
SKY=$(best -H "Authorization: Bearer bench-token" "$URL/dav/big/?list")
PEER="n/a"
if command -v nginx >/dev/null; then
    PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    cat > "$WORK/nginx.conf" <<CONF
$( [ "$(id -u)" = 0 ] && echo 'user root;')
daemon off; pid $WORK/nginx.pid; error_log $WORK/nginx.err; events {}
http { access_log off; server { listen 127.0.0.1:$PORT; root $WORK/store; autoindex on; autoindex_format json; } }
CONF
    nginx -c "$WORK/nginx.conf" & NGINX=$!
    sleep 0.5
    [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/big/")" = 200 ] || { echo "nginx peer failed" >&2; exit 1; }
    PEER=$(best "http://127.0.0.1:$PORT/big/")
fi
RATIO=$( [ "$PEER" = n/a ] && echo n/a || python3 -c "print(f'{$SKY / $PEER:.1f}')")
echo "listing of $N entries (best of 5): skylift ?list ${SKY}s   nginx autoindex json ${PEER}s   ratio ${RATIO}x"
SKYLIFT_TOKEN=bench-token python3 - "$URL" <<'PY'
import os, sys, tempfile, time
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.support.ui import WebDriverWait
url = sys.argv[1]
o = webdriver.ChromeOptions()
for a in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,900", f"--user-data-dir={tempfile.mkdtemp()}"):
    o.add_argument(a)
d = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=o)
try:
    d.get(url + "/?token=" + os.environ["SKYLIFT_TOKEN"])
    d.get(url + "/#/")
    WebDriverWait(d, 30).until(lambda d: d.execute_script("return document.querySelectorAll('#rows .row').length > 0"))
    start = time.time()
    d.get(url + "/#/big")
    WebDriverWait(d, 60, poll_frequency=0.02).until(lambda d: d.execute_script(
        "return document.getElementById('status').textContent.endsWith('items') && document.querySelectorAll('#rows .row').length > 0"))
    shown = time.time() - start
    rows = d.execute_script("return document.querySelectorAll('#rows .row').length")
    start = time.time()
    last = d.execute_async_script("""
        const done = arguments[0], s = document.getElementById('scroller');
        s.scrollTop = s.scrollHeight;
        requestAnimationFrame(() => requestAnimationFrame(() => {
          const r = document.querySelectorAll('#rows .row'); done(r[r.length - 1].dataset.name); }));""")
    scrolled = time.time() - start
    print(f"browser: folder on screen in {shown:.2f}s, {rows} row elements in the page, scroll to the end {scrolled:.3f}s (last row {last!r})")
finally:
    d.quit()
PY
