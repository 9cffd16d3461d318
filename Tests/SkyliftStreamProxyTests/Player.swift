import Foundation
import TestPrograms

/// A player-like HTTP client in Python: raw sockets with a small receive buffer (so the proxy cannot run far
/// ahead into socket buffers), Range requests for seeks, hanging up mid-body like a player that seeks.
///
/// Arguments: host port path outfile op...; each op is `offset:count[:pauseAt]`: GET `bytes=offset-`, read
/// `count` bytes (-1: to the end) and hang up; with `pauseAt`, print `PAUSED` after that many bytes and wait
/// for a line on stdin. Bytes read are appended to outfile. Prints `SHORT n` when a body ends early (and
/// stops), `OK` when every op completed. A socket idle for 30 s counts as a short body, so an orphaned player
/// never lingers.
let playerScript = #"""
import socket, sys
host, port, path, outname = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
out = open(outname, "wb")
for op in sys.argv[5:]:
    fields = [int(x) for x in op.split(":")]
    offset, count = fields[0], fields[1]
    pause = fields[2] if len(fields) > 2 else None
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 16384)
    s.settimeout(30)
    s.connect((host, port))
    s.sendall(("GET %s HTTP/1.1\r\nHost: %s:%d\r\nRange: bytes=%d-\r\nConnection: close\r\n\r\n" % (path, host, port, offset)).encode())
    buf = b""
    while b"\r\n\r\n" not in buf:
        d = s.recv(4096)
        if not d:
            print("NOHEAD"); sys.exit(1)
        buf += d
    head, body = buf.split(b"\r\n\r\n", 1)
    length = None
    for line in head.split(b"\r\n")[1:]:
        k, v = line.split(b":", 1)
        if k.strip().lower() == b"content-length":
            length = int(v)
    want = length if count < 0 else min(count, length)
    got = bytearray(body[:want])
    while len(got) < want:
        if pause is not None and len(got) >= pause:
            print("PAUSED", flush=True)
            if not sys.stdin.readline():
                sys.exit(1)
            pause = None
        try:
            d = s.recv(min(16384, want - len(got)))
        except OSError:
            d = b""
        if not d:
            out.write(got); out.close()
            print("SHORT %d" % len(got), flush=True)
            sys.exit(0)
        got += d
    out.write(got[:want])
    s.close()
out.close()
print("OK", flush=True)
"""#

/// A running player process with line-wise stdout and a stdin to resume it.
final class PlayerProcess: @unchecked Sendable {
    // @unchecked: a test drives one player from one task at a time; `pending` is touched only by `line()`.
    let process = Process()
    let input = Pipe()
    let output = Pipe()
    let outFile: URL
    private var pending = Data()

    init(port: UInt16, path: String, ops: [String]) throws {
        outFile = FileManager.default.temporaryDirectory.appendingPathComponent("player-" + UUID().uuidString)
        process.executableURL = try TestPrograms.python()
        process.arguments = ["-c", playerScript, "127.0.0.1", String(port), path, outFile.path] + ops
        process.standardInput = input
        process.standardOutput = output
        try process.run()
    }

    deinit {
        if process.isRunning { process.terminate() }
        try? FileManager.default.removeItem(at: outFile)
    }

    /// The next line the player printed; nil at end of output.
    func line() -> String? {
        while true {
            if let nl = pending.firstIndex(of: 10) {
                let line = String(decoding: pending[pending.startIndex ..< nl], as: UTF8.self)
                pending = Data(pending[(nl + 1)...])
                return line
            }
            let more = output.fileHandleForReading.availableData
            if more.isEmpty { return pending.isEmpty ? nil : String(decoding: pending, as: UTF8.self) }
            pending.append(more)
        }
    }

    func resume() { input.fileHandleForWriting.write(Data("go\n".utf8)) }

    /// Waits for exit and returns every byte the player read.
    func finish() throws -> [UInt8] {
        process.waitUntilExit()
        return Array(try Data(contentsOf: outFile))
    }
}
