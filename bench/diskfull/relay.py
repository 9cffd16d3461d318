#!/usr/bin/env python3
"""A loopback TCP relay that counts the bytes clients send through it: `relay.py UPSTREAM_PORT COUNT_FILE`.

Prints the port it listens on, then forwards every connection to 127.0.0.1:UPSTREAM_PORT and keeps the total of
client-to-server bytes in COUNT_FILE (rewritten after each read), until it is killed.
"""
import socket
import sys
import threading

upstream, count_file = int(sys.argv[1]), sys.argv[2]
total = 0
lock = threading.Lock()


def pipe(src, dst, counted):
    global total
    try:
        while True:
            data = src.recv(1 << 16)
            if not data:
                break
            if counted:
                with lock:
                    total += len(data)
                    with open(count_file, "w") as f:
                        f.write(str(total))
            dst.sendall(data)
    except OSError:
        pass
    finally:
        for s in (src, dst):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


listener = socket.socket()
listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
listener.bind(("127.0.0.1", 0))
listener.listen(64)
print(listener.getsockname()[1], flush=True)
while True:
    client, _ = listener.accept()
    server = socket.create_connection(("127.0.0.1", upstream))
    threading.Thread(target=pipe, args=(client, server, True), daemon=True).start()
    threading.Thread(target=pipe, args=(server, client, False), daemon=True).start()
