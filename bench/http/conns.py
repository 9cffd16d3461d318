#!/usr/bin/env python3
"""Connection holders for bench/http/run.sh.

  conns.py idle HOST PORT PATH COUNT
      Opens COUNT connections, sends one keep-alive GET on each and reads its answer, then keeps them all
      open and idle. Prints "READY n" (n = connections that got a 200) and waits until stdin closes.
  conns.py slowloris HOST PORT COUNT INTERVAL
      Opens COUNT connections that each send one byte of a request head every INTERVAL seconds, never
      finishing it. Prints "READY n" and keeps going until stdin closes, then prints "ALIVE k" (how many the
      server still held open) .
  conns.py probe HOST PORT PATH TIMEOUT
      One fresh connection, one GET; prints "answer STATUS SECONDS", "reset SECONDS" (closed with no answer)
      or "waiting SECONDS" (no answer within TIMEOUT: the connection is queued, not refused).
"""
import socket
import sys
import threading
import time


def request(path, extra=""):
    return f"GET {path} HTTP/1.1\r\nHost: bench\r\n{extra}\r\n".encode()


def read_answer(sock):
    """Reads one response with a Content-Length body; returns its status or None if the peer closed."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            return None
        data += chunk
    head, _, rest = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    length = 0
    for line in lines[1:]:
        name, _, value = line.partition(":")
        if name.strip().lower() == "content-length":
            length = int(value.strip())
    while len(rest) < length:
        chunk = sock.recv(65536)
        if not chunk:
            return None
        rest += chunk
    return status


def idle(host, port, path, count):
    socks, ok = [], 0
    for _ in range(count):
        s = socket.create_connection((host, port))
        s.sendall(request(path))
        if read_answer(s) == 200:
            ok += 1
        socks.append(s)
    print("READY", ok, flush=True)
    sys.stdin.read()


def slowloris(host, port, count, interval):
    socks = [socket.create_connection((host, port)) for _ in range(count)]
    head = request("/", "X-Slow: " + "a" * 10000 + "\r\n")
    print("READY", len(socks), flush=True)
    stop = threading.Event()

    def drip():
        i = 0
        while not stop.wait(interval):
            for s in socks:
                try:
                    s.send(head[i:i + 1])
                except OSError:
                    pass
            i += 1

    threading.Thread(target=drip, daemon=True).start()
    sys.stdin.read()
    stop.set()
    alive = 0
    for s in socks:
        try:
            s.send(b"a")
            s.setblocking(False)
            try:
                alive += 0 if s.recv(1) == b"" else 1
            except BlockingIOError:
                alive += 1
        except OSError:
            pass
    print("ALIVE", alive, flush=True)


def probe(host, port, path, timeout):
    start = time.monotonic()
    try:
        s = socket.create_connection((host, port), timeout=timeout)
        s.settimeout(max(0.1, timeout - (time.monotonic() - start)))
        s.sendall(request(path, "Connection: close\r\n"))
        status = read_answer(s)
        took = time.monotonic() - start
        print(f"answer {status} {took:.2f}" if status else f"reset {took:.2f}", flush=True)
    except socket.timeout:
        print(f"waiting {time.monotonic() - start:.2f}", flush=True)
    except OSError:
        print(f"reset {time.monotonic() - start:.2f}", flush=True)


if __name__ == "__main__":
    mode, host, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
    if mode == "idle":
        idle(host, port, sys.argv[4], int(sys.argv[5]))
    elif mode == "slowloris":
        slowloris(host, port, int(sys.argv[4]), float(sys.argv[5]))
    elif mode == "probe":
        probe(host, port, sys.argv[4], float(sys.argv[5]))
