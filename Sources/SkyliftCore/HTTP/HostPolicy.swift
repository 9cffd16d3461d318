#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Which `Host` header values a local server answers, against DNS rebinding: a web page whose name the
/// attacker re-points at 127.0.0.1 reaches a loopback server, but its requests still carry the attacker's
/// name in `Host`. Answering only loopback names and addresses (and names the user listed) closes that.
///
/// The port in `Host` is not compared: a rebinding page cannot choose the name it sends, only the port,
/// so the name is what protects; and port forwards (`ssh -L`, container port maps) legitimately deliver
/// requests whose `Host` port differs from the one bound.
public struct HostPolicy: Sendable, Equatable {
    /// Names and addresses admitted besides loopback ones, normalized (lowercase, no brackets, no
    /// trailing dot).
    public private(set) var allowed: Set<String>

    /// A policy admitting loopback plus `names` (each as ``normalizedName(_:)`` accepts it).
    public init(allowing names: [String] = []) {
        allowed = Set(names.compactMap(Self.normalizedName))
    }

    /// What to do with a request.
    public enum Verdict: Sendable, Equatable {
        case allowed
        /// HTTP/1.1 without `Host`, or more than one `Host` (RFC 9112 §3.2: 400).
        case missingOrRepeated
        /// A `Host` value that is not `host[:port]`.
        case malformed
        /// A well-formed name that is neither loopback nor allowed; carries the name (without port).
        case refused(String)
    }

    /// The verdict for a request carrying `hostValues` (every `Host` field) in `version`.
    /// HTTP/1.0 requests without `Host` come from tools, not browsers, and are admitted.
    public func check(_ hostValues: [String], version: String) -> Verdict {
        if hostValues.count > 1 { return .missingOrRepeated }
        guard let value = hostValues.first else { return version == "HTTP/1.0" ? .allowed : .missingOrRepeated }
        guard let name = Self.hostName(ofHeader: value) else { return .malformed }
        return Self.isLoopback(name) || allowed.contains(name) ? .allowed : .refused(name)
    }

    /// The normalized name of a `Host` value (`name`, `name:port`, `[v6]`, `[v6]:port`); nil when malformed.
    public static func hostName(ofHeader value: String) -> String? {
        let v = value.trimmingSpaces()
        let host: String?
        let rest: Substring
        if v.hasPrefix("[") {
            guard let close = v.firstIndex(of: "]") else { return nil }
            let inside = String(v[v.index(after: v.startIndex) ..< close])
            host = isIPv6(inside) ? inside.lowercased() : nil
            rest = v[v.index(after: close)...]
        } else {
            let colon = v.firstIndex(of: ":") ?? v.endIndex
            host = normalize(v[..<colon])
            rest = v[colon...]
        }
        if !rest.isEmpty {
            guard rest.first == ":", rest.dropFirst().count <= 5, rest.dropFirst().allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        }
        return host
    }

    /// An `--allow-host` value normalized: a host name or an IP address (IPv6 with or without brackets),
    /// without a port. Nil when it is neither.
    public static func normalizedName(_ given: String) -> String? {
        var v = Substring(given.trimmingSpaces())
        if v.hasPrefix("[") && v.hasSuffix("]") { v = v.dropFirst().dropLast() }
        if isIPv6(String(v)) { return v.lowercased() }
        return normalize(v)
    }

    /// `localhost`, 127.0.0.0/8, `::1` (and `::ffff:127.x.y.z`), given normalized.
    public static func isLoopback(_ name: String) -> Bool {
        if name == "localhost" { return true }
        var v4 = in_addr()
        if inet_pton(AF_INET, name, &v4) == 1 {
            return UInt32(bigEndian: v4.s_addr) >> 24 == 127
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, name, &v6) == 1 else { return false }
        let bytes = withUnsafeBytes(of: &v6) { Array($0) }
        if bytes[0 ..< 15].allSatisfy({ $0 == 0 }) && bytes[15] == 1 { return true }
        return bytes[0 ..< 10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xff && bytes[11] == 0xff && bytes[12] == 127
    }

    private static func isIPv6(_ text: String) -> Bool {
        var v6 = in6_addr()
        return inet_pton(AF_INET6, text, &v6) == 1
    }

    /// Lowercased, one trailing dot dropped (`localhost.` is `localhost`); nil unless every character is
    /// one a host name or IPv4 address uses.
    private static func normalize(_ host: Substring) -> String? {
        var h = host.lowercased()
        if h.hasSuffix(".") { h.removeLast() }
        guard !h.isEmpty, h.count <= 253,
              h.unicodeScalars.allSatisfy({ ($0 >= "a" && $0 <= "z") || ($0 >= "0" && $0 <= "9") || $0 == "-" || $0 == "." || $0 == "_" })
        else { return nil }
        return h
    }
}
