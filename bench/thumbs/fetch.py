#!/usr/bin/env python3
"""GETs every URL path in a list over JOBS keep-alive connections and prints the seconds it took.

    fetch.py HOST PORT JOBS LIST [REPEAT]

LIST holds one path per line; each must answer 200 with a body (a JPEG when the path asks ?thumb=); with
REPEAT the whole list is fetched that many times. Exits non-zero on any other answer."""
import http.client, sys, threading, time

host, port, jobs, listing = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
repeat = int(sys.argv[5]) if len(sys.argv) > 5 else 1
paths = [line.strip() for line in open(listing) if line.strip()] * repeat
failures = []
lock = threading.Lock()
next_index = [0]

def take():
    with lock:
        i = next_index[0]
        next_index[0] += 1
    return paths[i] if i < len(paths) else None

def worker():
    conn = http.client.HTTPConnection(host, port, timeout=300)
    while (path := take()) is not None:
        conn.request("GET", path)
        r = conn.getresponse()
        body = r.read()
        if r.status != 200 or not body or ("thumb=" in path and body[:2] != b"\xff\xd8"):
            with lock:
                failures.append(f"{path}: {r.status} {body[:100]!r}")
    conn.close()

start = time.perf_counter()
threads = [threading.Thread(target=worker) for _ in range(jobs)]
for t in threads: t.start()
for t in threads: t.join()
elapsed = time.perf_counter() - start
if failures:
    print("\n".join(failures[:5]), file=sys.stderr)
    sys.exit(1)
print(f"{elapsed:.3f}")
