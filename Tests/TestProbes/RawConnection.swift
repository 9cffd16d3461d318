import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One TCP connection the test drives byte by byte: whatever is written goes out as is (pipelined requests,
/// HTTP/1.0 heads, bodies the server never asked for), and responses are read one at a time off the same socket.
/// Opening one of these is the test's single TCP connect; every answer read from it came over that connection.
public final class RawConnection {
    public struct Response {
        public var status: Int
        public var headers: [(name: String, value: String)]
        public var body: [UInt8]

        public func header(_ name: String) -> String? { headers.first { $0.name.lowercased() == name.lowercased() }?.value }
        public var text: String { String(decoding: body, as: UTF8.self) }
    }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    private let fd: Int32
    private var buffer: [UInt8] = []

    /// Connects to 127.0.0.1:`port`; reads give up after `timeout` seconds of silence.
    public init(port: UInt16, timeout: Int = 10) throws {
        fd = try Self.connectedSocket(port: port)
        var tv = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
    }

    /// A TCP socket connected to 127.0.0.1:`port`; the caller closes it.
    public static func connectedSocket(port: UInt16) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            close(fd)
            throw Failure(description: "connect to port \(port): errno \(errno)")
        }
        return fd
    }

    deinit { close(fd) }

    /// Sends the text (CRLFs included by the caller) and any body bytes after it, all at once.
    public func send(_ text: String, body: [UInt8] = []) throws {
        let bytes = Array(text.utf8) + body
        guard bytes.withUnsafeBytes({ Self.sendAll(fd, $0) }) else { throw Failure(description: "send: errno \(errno)") }
    }

    /// Writes all of `bytes` to socket `fd`; false when the socket refused some (the peer is gone).
    public static func sendAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let n = Glibc.send(fd, bytes.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL))
            guard n > 0 else { return false }
            sent += n
        }
        return true
    }

    /// Reads the next response. `head` is true for the answer to a HEAD request (no body follows).
    public func response(head: Bool = false) throws -> Response {
        let end = try fill(until: { b in b.indices.dropLast(3).first { b[$0] == 13 && b[$0 + 1] == 10 && b[$0 + 2] == 13 && b[$0 + 3] == 10 } })
        let lines = String(decoding: buffer[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        buffer.removeFirst(end + 4)
        let statusParts = lines[0].split(separator: " ")
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else { throw Failure(description: "bad status line \(lines[0])") }
        let headers = lines.dropFirst().compactMap { line -> (name: String, value: String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        var response = Response(status: status, headers: headers, body: [])
        if head || status == 204 || status == 304 { return response }
        if response.header("Transfer-Encoding")?.lowercased() == "chunked" {
            response.body = try chunkedBody()
        } else if let length = response.header("Content-Length").flatMap(Int.init) {
            response.body = try take(length)
        } else {
            response.body = try readToEnd()
        }
        return response
    }

    /// True when the server closed the connection: a read returns end of file with nothing pending.
    public func isClosedByServer() -> Bool {
        guard buffer.isEmpty else { return false }
        var byte: UInt8 = 0
        return recv(fd, &byte, 1, 0) == 0
    }

    private func chunkedBody() throws -> [UInt8] {
        var body: [UInt8] = []
        while true {
            let lineEnd = try fill(until: { b in b.indices.dropLast().first { b[$0] == 13 && b[$0 + 1] == 10 } })
            let sizeText = String(decoding: buffer[..<lineEnd], as: UTF8.self).split(separator: ";").first ?? ""
            buffer.removeFirst(lineEnd + 2)
            guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16) else {
                throw Failure(description: "bad chunk size \(sizeText)")
            }
            body += try take(size)
            _ = try take(2)
            if size == 0 { return body }
        }
    }

    private func take(_ count: Int) throws -> [UInt8] {
        _ = try fill(until: { $0.count >= count ? count : nil })
        defer { buffer.removeFirst(count) }
        return Array(buffer[..<count])
    }

    private func readToEnd() throws -> [UInt8] {
        while try readMore() {}
        defer { buffer.removeAll() }
        return buffer
    }

    /// Reads until `found` locates something in the buffer; returns what it found.
    private func fill(until found: ([UInt8]) -> Int?) throws -> Int {
        while true {
            if let at = found(buffer) { return at }
            guard try readMore() else { throw Failure(description: "connection closed by the server mid-response") }
        }
    }

    private func readMore() throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if n < 0 { throw Failure(description: "recv: errno \(errno) (timed out waiting for the server?)") }
        buffer += chunk[..<n]
        return n > 0
    }
}
