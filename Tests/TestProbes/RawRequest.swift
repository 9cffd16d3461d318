import Foundation
import TestPrograms

/// Sends one raw HTTP/1.1 GET of `target` (bytes as given) with `headerLines` to 127.0.0.1:`port`; the
/// status line back.
public func rawRequest(port: Int, target: String, headerLines: [String] = ["Host: 127.0.0.1"]) throws -> String {
    let script = """
    import socket, sys
    s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
    head = "".join(h + "\\r\\n" for h in sys.argv[3:]).encode()
    s.sendall(b"GET " + sys.argv[2].encode("utf-8", "surrogateescape") + b" HTTP/1.1\\r\\n" + head + b"Connection: close\\r\\n\\r\\n")
    data = b""
    while True:
        chunk = s.recv(65536)
        if not chunk: break
        data += chunk
    print(data.split(b"\\r\\n")[0].decode())
    """
    return try runForOutput(try TestPrograms.python(), ["-c", script, String(port), target] + headerLines).out
        .trimmingCharacters(in: .whitespacesAndNewlines)
}
