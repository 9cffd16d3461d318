#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An IPv4 or IPv6 socket address for binding.
struct SocketAddress {
    private var storage = sockaddr_storage()
    let isIPv6: Bool

    init(host: String, port: UInt16) throws {
        let name = host == "localhost" ? "127.0.0.1" : host
        var v4 = in_addr(), v6 = in6_addr()
        if inet_pton(AF_INET, name, &v4) == 1 {
            isIPv6 = false
            var sin = sockaddr_in()
            sin.sin_family = sa_family_t(AF_INET)
            sin.sin_port = port.bigEndian
            sin.sin_addr = v4
            withUnsafeMutableBytes(of: &storage) { dst in withUnsafeBytes(of: sin) { dst.copyMemory(from: $0) } }
        } else if inet_pton(AF_INET6, name, &v6) == 1 {
            isIPv6 = true
            var sin6 = sockaddr_in6()
            sin6.sin6_family = sa_family_t(AF_INET6)
            sin6.sin6_port = port.bigEndian
            sin6.sin6_addr = v6
            withUnsafeMutableBytes(of: &storage) { dst in withUnsafeBytes(of: sin6) { dst.copyMemory(from: $0) } }
        } else {
            throw HTTPServerError.badAddress(host)
        }
    }

    func withSockaddr<R>(_ body: (UnsafePointer<sockaddr>) -> R) -> R {
        withUnsafeBytes(of: storage) { body($0.baseAddress!.assumingMemoryBound(to: sockaddr.self)) }
    }
}
