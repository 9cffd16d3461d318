#!/usr/bin/env python3
"""One HTTP PUT of a file with a client that takes as little CPU as it can, so that on a machine where client
and server share two cores, the server gets them, as it would with its client on another machine. `curl -T`
reads every byte into its own buffer and writes it out again: 0.45-0.75 CPU-s per GiB here.

Usage: put-client.py sendfile|memory URL FILE [HEADER: value ...]
       put-client.py source FILE MIB      (writes FILE: one random MiB, MIB times; what `memory` needs)
  sendfile  the body goes from the page cache to the socket by sendfile(2) (~0.2 CPU-s per GiB). The server's
            recv then copies from pages no core has touched lately, much as it would from a network card.
  memory    FILE must be its first MiB repeated (bench/serve/digest.sh makes it so); that MiB is read once and
            sent over and over from the client's cache, so the server copies warm bytes, as it does with curl.
Prints the upload speed in bytes per second (curl's %{speed_upload}); exits 1 with a message when not all of
the body went out or the server did not answer 201 or 204.
"""
import os
import socket
import sys
import time
import urllib.parse

BLOCK = 1 << 20


def send_body(sock: socket.socket, body, size: int, mode: str) -> int:
    if mode == "sendfile":
        return sock.sendfile(body)
    block = memoryview(body.read(BLOCK))
    sent = 0
    while sent < size and len(block):
        piece = block[: min(len(block), size - sent)]
        sock.sendall(piece)
        sent += len(piece)
    return sent


def write_source(path: str, mib: int) -> None:
    block = os.urandom(BLOCK)
    with open(path, "wb") as out:
        for _ in range(mib):
            out.write(block)


def main() -> int:
    if len(sys.argv) == 4 and sys.argv[1] == "source":
        write_source(sys.argv[2], int(sys.argv[3]))
        return 0
    if len(sys.argv) < 4 or sys.argv[1] not in ("sendfile", "memory"):
        print("usage: put-client.py sendfile|memory URL FILE [HEADER: value ...] | source FILE MIB", file=sys.stderr)
        return 2
    mode, target, path = sys.argv[1:4]
    url = urllib.parse.urlsplit(target)
    extra = "".join(f"{h}\r\n" for h in sys.argv[4:])
    size = os.path.getsize(path)
    with socket.create_connection((url.hostname, url.port or 80)) as sock, open(path, "rb") as body:
        start = time.monotonic()
        head = (f"PUT {url.path} HTTP/1.1\r\nHost: {url.netloc}\r\nContent-Length: {size}\r\n"
                f"{extra}Connection: close\r\n\r\n")
        sock.sendall(head.encode("latin-1"))
        sent = send_body(sock, body, size, mode)
        answer = b""
        while b"\r\n\r\n" not in answer and len(answer) < 65536:
            chunk = sock.recv(65536)
            if not chunk:
                break
            answer += chunk
        elapsed = time.monotonic() - start
    status = answer.split(b"\r\n", 1)[0].decode("latin-1", "replace")
    if sent != size or status.split(" ")[1:2] not in (["201"], ["204"]):
        print(f"PUT {target}: sent {sent} of {size} bytes, answer {status!r}", file=sys.stderr)
        return 1
    print(size / elapsed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
