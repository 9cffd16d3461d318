#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A client's IP address, without its port: the key of the per-address connection cap, and what handlers key
/// per-client limits by (``HTTPRequest/peer``). An IPv4 address is kept as its IPv4-mapped IPv6 form, so both
/// families share one space.
public struct PeerAddress: Hashable, Sendable, CustomStringConvertible {
    private let high: UInt64
    private let low: UInt64

    init(_ address: UnsafePointer<sockaddr>?) {
        guard let address else { high = 0; low = 0; return }
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            let v4 = UnsafeRawPointer(address).assumingMemoryBound(to: sockaddr_in.self).pointee.sin_addr.s_addr
            high = 0
            low = 0xFFFF_0000_0000 | UInt64(UInt32(bigEndian: v4))
        case AF_INET6:
            let raw = UnsafeRawPointer(address).assumingMemoryBound(to: sockaddr_in6.self)
            var bytes = raw.pointee.sin6_addr
            let words = withUnsafeBytes(of: &bytes) { ($0.loadUnaligned(as: UInt64.self), $0.loadUnaligned(fromByteOffset: 8, as: UInt64.self)) }
            high = UInt64(bigEndian: words.0)
            low = UInt64(bigEndian: words.1)
        default:
            high = 0; low = 0
        }
    }

    /// Dotted IPv4 for an IPv4 client, else the IPv6 text form.
    public var description: String {
        if high == 0, low >> 32 == 0xFFFF {
            let v4 = UInt32(truncatingIfNeeded: low)
            return "\(v4 >> 24).\((v4 >> 16) & 0xFF).\((v4 >> 8) & 0xFF).\(v4 & 0xFF)"
        }
        var address = in6_addr()
        withUnsafeMutableBytes(of: &address) { raw in
            raw.storeBytes(of: high.bigEndian, toByteOffset: 0, as: UInt64.self)
            raw.storeBytes(of: low.bigEndian, toByteOffset: 8, as: UInt64.self)
        }
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        guard inet_ntop(AF_INET6, &address, &text, socklen_t(text.count)) != nil else { return "::" }
        return String(cString: text)
    }
}
