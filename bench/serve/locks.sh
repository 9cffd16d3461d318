#!/usr/bin/env bash
# bench/serve/locks.sh: `skylift serve`'s memory under a LOCK flood (issue 10, item 5), read from /proc/PID/status.
#   1. 60 shared LOCKs of one file, each with a 1 MB (10^6 bytes) <owner> (before the caps this grew the server by 238 MiB);
#   2. 2000 exclusive LOCKs of new names, each with a ~4 KiB owner (the table holds 1024 locks in all).
# Prints the answers' status counts and VmRSS/VmHWM before and after each step.
# Usage: bench/serve/locks.sh                 (release build of this tree)
#        BIN=/path/to/skylift bench/serve/locks.sh   (any other build, e.g. one from before the caps)
# Needs: curl, python3.
set -euo pipefail
. "$(dirname "$0")/../quiet.sh"
quiet_begin
trap quiet_end EXIT
cd "$(dirname "$0")/../.."
. bench/serve/tokened.sh
scratch locks
mkdir -p "$WORK/root/many"
echo x > "$WORK/root/doc.txt"
start_serve locks

lockinfo() { # scope owner-bytes
    python3 -c "import sys; print('<?xml version=\"1.0\" encoding=\"utf-8\"?><D:lockinfo xmlns:D=\"DAV:\"><D:lockscope><D:$1/></D:lockscope><D:locktype><D:write/></D:locktype><D:owner>' + 'o' * $2 + '</D:owner></D:lockinfo>', end='')"
}
# flood COUNT BODYFILE PATH-PATTERN: one curl run, one connection; prints the status counts.
flood() {
    python3 - "$1" "$2" "$3" "$URL" "$TOKEN" > "$WORK/curl.cfg" <<'PY'
import sys
count, body, pattern, url, token = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5]
groups = [f'url = "{url}{pattern.replace("N", str(i))}"\nrequest = "LOCK"\nheader = "Authorization: Bearer {token}"\n'
          f'data-binary = "@{body}"\nsilent\noutput = "/dev/null"\nwrite-out = "%{{http_code}}\\n"' for i in range(count)]
print("\nnext\n".join(groups))
PY
    curl -K "$WORK/curl.cfg" | sort | uniq -c | awk '{printf "%s x %s  ", $1, $2}'; echo
}

echo "skylift serve ($BIN)"
printf 'start:                                  '; mem
lockinfo shared 1000000 > "$WORK/big.xml"
printf '60 shared LOCKs, 1 MB owners:           '; flood 60 "$WORK/big.xml" doc.txt
printf 'after:                                  '; mem
lockinfo exclusive 4000 > "$WORK/owner4k.xml"
printf '2000 exclusive LOCKs, 4 KiB owners:     '; flood 2000 "$WORK/owner4k.xml" many/fN
printf 'after:                                  '; mem
