import Foundation
import TestPrograms

/// A loopback TCP relay (a python3 child) in front of a server: it passes every byte through, except that in
/// the first PUT body it flips one bit at `flipAt`, as a bad link or a faulty middlebox would, and it writes
/// each request line it relays to its log, so a test can count what the client asked for.
final class FlippingRelay {
    private let process = Process()
    private let output = Pipe()
    let port: Int

    private static let script = #"""
    import os, signal, socket, sys, threading
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    target_port, flip_at = int(sys.argv[1]), int(sys.argv[2])
    lock = threading.Lock()
    flipped = [False]
    def pump_up(c, s):
        buf, remaining, pos, flip = b"", 0, 0, False
        while True:
            data = c.recv(65536)
            if not data:
                break
            out = bytearray()
            while data:
                if remaining == 0:
                    buf += data
                    data = b""
                    end = buf.find(b"\r\n\r\n")
                    if end < 0:
                        break
                    head, data, buf = buf[:end + 4], buf[end + 4:], b""
                    out += head
                    lines = head.split(b"\r\n")
                    with lock:
                        print(lines[0].decode("latin-1"), flush=True)
                        flip = lines[0].startswith(b"PUT ") and not flipped[0]
                    remaining, pos = 0, 0
                    for line in lines[1:]:
                        if line.lower().startswith(b"content-length:"):
                            remaining = int(line.split(b":", 1)[1])
                else:
                    chunk = bytearray(data[:remaining])
                    data = data[remaining:]
                    if flip and pos <= flip_at < pos + len(chunk):
                        chunk[flip_at - pos] ^= 0x01
                        with lock:
                            flipped[0] = True
                    pos += len(chunk)
                    remaining -= len(chunk)
                    out += chunk
            s.sendall(out)
        s.shutdown(socket.SHUT_WR)
    def pump_down(s, c):
        while True:
            data = s.recv(65536)
            if not data:
                break
            c.sendall(data)
        c.shutdown(socket.SHUT_WR)
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    print(listener.getsockname()[1], flush=True)
    while True:
        c, _ = listener.accept()
        s = socket.create_connection(("127.0.0.1", target_port))
        threading.Thread(target=pump_up, args=(c, s), daemon=True).start()
        threading.Thread(target=pump_down, args=(s, c), daemon=True).start()
    """#

    init(to targetPort: UInt16, flipAt: Int) throws {
        process.executableURL = try TestPrograms.python()
        process.arguments = ["-c", Self.script, String(targetPort), String(flipAt)]
        process.standardOutput = output
        try process.run()
        var first = Data()
        while !first.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            first.append(chunk)
        }
        port = Int(String(decoding: first, as: UTF8.self).split(separator: "\n").first ?? "") ?? 0
    }

    /// Stops the relay and returns the request lines it passed on.
    func stop() -> [String] {
        // SIGKILL: a child of Foundation's Process may start with SIGTERM blocked.
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        let rest = output.fileHandleForReading.readDataToEndOfFile()
        return String(decoding: rest, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    deinit { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
}
