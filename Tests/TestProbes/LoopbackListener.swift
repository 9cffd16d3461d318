import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A TCP listener on a free loopback port that accepts nobody: whether anyone connected shows in its queue.
public final class LoopbackListener: Sendable {
    private let fd: Int32
    public let port: UInt16

    public init() throws {
        (fd, port) = try Self.bound(backlog: 16)
    }

    /// A TCP socket listening on a free loopback port (`backlog` connections queued), and the port; the caller
    /// closes it.
    public static func bound(backlog: Int32) throws -> (fd: Int32, port: UInt16) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound, listen(fd, backlog) == 0 else {
            close(fd)
            throw POSIXError(.EADDRNOTAVAIL)
        }
        return (fd, UInt16(bigEndian: address.sin_port))
    }

    /// True when a connection is waiting (or was made and closed) on the listener.
    public var wasContacted: Bool {
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&p, 1, 0) > 0
    }

    deinit { close(fd) }
}
