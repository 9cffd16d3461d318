#!/usr/bin/env bash
# bench/xml/run.sh: what parsing XML costs `skylift` in memory (issue 10, fuzz finding; issue 13).
#   1. `skylift serve` on a scratch root: VmRSS/VmHWM before and after COUNT (default 6000) PROPFINDs of /dav/
#      (Depth: 0, a <D:prop> of 200 property names), sent by one curl process on one kept-alive connection;
#      read from /proc/PID/status. A parser that keeps something per body shows here as growth.
#   2. Which Foundation/XML/ICU libraries the running server has mapped (/proc/PID/maps).
#   3. Peak RSS of `skylift --help` (/usr/bin/time -v) and what the binary links (ldd).
# Usage: bench/xml/run.sh [COUNT]                (release build of this tree)
#        BIN=/path/to/skylift bench/xml/run.sh   (any other build, e.g. one from before a change)
# Needs: curl, python3, /usr/bin/time.
set -euo pipefail
. "$(dirname "$0")/../quiet.sh"
quiet_begin
trap quiet_end EXIT
cd "$(dirname "$0")/../.."
COUNT="${1:-6000}"
. bench/serve/tokened.sh
scratch xml
echo x > "$WORK/root/doc.txt"
start_serve xml

python3 - "$WORK/body.xml" <<'PY'
import sys
names = "".join(f"<Z:p{i}/>" for i in range(200))
body = ('<?xml version="1.0" encoding="utf-8"?>\n<D:propfind xmlns:D="DAV:" xmlns:Z="urn:bench:xml">'
        f'<D:prop>{names}</D:prop></D:propfind>')
open(sys.argv[1], "w").write(body)
PY
python3 - "$COUNT" "$WORK/body.xml" "$URL" "$TOKEN" > "$WORK/curl.cfg" <<'PY'
import sys
count, body, url, token = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
one = (f'url = "{url}"\nrequest = "PROPFIND"\nheader = "Authorization: Bearer {token}"\nheader = "Depth: 0"\n'
       f'header = "Content-Type: application/xml"\ndata-binary = "@{body}"\nsilent\noutput = "/dev/null"\n'
       'write-out = "%{http_code}\\n"')
print("\nnext\n".join([one] * count))
PY

echo "skylift serve ($BIN), body $(wc -c < "$WORK/body.xml") bytes"
printf 'start:                        '; mem
printf '%-30s' "$COUNT PROPFINDs:"; curl -K "$WORK/curl.cfg" | sort | uniq -c | awk '{printf "%s x %s  ", $1, $2}'; echo
printf 'after:                        '; mem
echo "mapped by serve: $(grep -oE '[^/]*(Foundation|xml|icu)[^/ ]*\.so[.0-9]*' "/proc/$PID/maps" | sort -u | tr '\n' ' ')"
kill "$PID"; wait "$PID" 2>/dev/null || true; PID=

/usr/bin/time -v "$BIN" --help > /dev/null 2> "$WORK/time"
echo "skylift --help: $(awk -F': ' '/Maximum resident/{printf "peak RSS %.1f MiB", $2/1024}' "$WORK/time")"
echo "linked: $(ldd "$BIN" | grep -oE '^\s*\S*(Foundation|xml|icu)\S*' | tr -d '\t ' | sort | tr '\n' ' ')"
