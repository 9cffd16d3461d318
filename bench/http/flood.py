#!/usr/bin/env python3
"""An ordinary client beside a flood, for bench/http/run.sh part 7.

  flood.py idle|slowloris HOST PORT PATH COUNT REQUESTS SERVER_PID

Opens COUNT connections from this one address: `idle` ones connect and stay silent; `slowloris` ones send one
byte of a never-finished request head every 5 s. Once they are all open, an ordinary client sends REQUESTS GETs
of PATH, each on a new connection, 20 ms apart, timing each from connect to the end of the answer. Prints one
line: answered, resets, other failures, p50 and p99 in ms, the flood's connections still open at the end, and
the server's RSS (MiB) before the flood and its highest while the flood was open.
"""
import resource
import socket
import sys
import threading
import time

mode, host, port, path, count, requests, pid = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], \
    int(sys.argv[5]), int(sys.argv[6]), sys.argv[7]
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, count + 1024), hard))


def rss_mib():
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def get_once():
    """One GET on a new connection: ('ok', seconds), ('reset', s) or ('failed: …', s)."""
    start = time.monotonic()
    try:
        s = socket.create_connection((host, port), timeout=10)
        s.sendall(f"GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n".encode())
        data = b""
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
        s.close()
        status = data.split(b" ", 2)[1] if data.startswith(b"HTTP/") else b"none"
        return ("ok" if status == b"200" else f"status {status.decode()}"), time.monotonic() - start
    except ConnectionResetError:
        return "reset", time.monotonic() - start
    except OSError as e:
        return f"failed: {e}", time.monotonic() - start


rss_before = rss_mib()
flood = []
for _ in range(count):
    try:
        c = socket.socket()
        c.setblocking(True)
        c.connect((host, port))
        c.setblocking(False)
        flood.append(c)
    except OSError:
        break

peak = [rss_mib()]
stop = threading.Event()


def watch():
    while not stop.is_set():
        peak[0] = max(peak[0], rss_mib())
        time.sleep(0.05)


def drip():
    step = 0
    while not stop.wait(5):
        for c in flood:
            try:
                c.send(b"GET / HTTP/1.1\r\n" if step == 0 else b"X")
            except OSError:
                pass
        step += 1


threading.Thread(target=watch, daemon=True).start()
if mode == "slowloris":
    threading.Thread(target=drip, daemon=True).start()
time.sleep(1)
results = []
for _ in range(requests):
    results.append(get_once())
    time.sleep(0.02)
stop.set()
still_open = 0
for c in flood:
    try:
        if c.recv(1) == b"":
            continue
        still_open += 1
    except BlockingIOError:
        still_open += 1
    except OSError:
        pass
times = sorted(t * 1000 for r, t in results if r == "ok")
answered = len(times)
resets = sum(1 for r, _ in results if r == "reset")
other = len(results) - answered - resets


def pct(p):
    return times[min(len(times) - 1, int(len(times) * p))] if times else float("nan")


print(f"opened {len(flood)} answered {answered}/{len(results)} resets {resets} other {other} "
      f"p50 {pct(0.50):.2f} p99 {pct(0.99):.2f} ms flood-open-at-end {still_open} "
      f"rss {rss_before:.1f} -> peak {peak[0]:.1f} MiB")
