import Foundation
import SkyliftHashing
import SkyliftCore

/// One read-only share: a file or folder of the store, by its segments below the root, until `expires`.
public struct Share: Codable, Sendable, Equatable {
    public var id: String
    public var path: [String]
    /// Seconds since 1970.
    public var expires: Int64
    public var created: Int64
}

/// What a share link turned out to be.
public enum ShareCheck: Equatable {
    case valid(Share)
    /// Signed, but past its expiry: 410.
    case expired
    /// Not (or no longer) in the registry, or not signed by this server: 403.
    case refused
}

/// Read-only share links and their registry (`shares.json` in the state folder, 0600, replaced atomically under
/// a lock so `skylift share` and a running server can both write it).
///
/// A link is `<id>-<expiry>-<mac>`: the expiry travels inside the link, and the MAC (HMAC-SHA256 under the
/// server secret over id, expiry and path) means neither can be changed. The registry maps ids to paths, so a
/// link can be listed, and revoked by deleting its id.
public struct Shares: Sendable {
    private let state: any WebStateStore
    private let secret: [UInt8]

    public init(state: any WebStateStore, secret: [UInt8]) {
        self.state = state
        self.secret = secret
    }

    /// Every share, expired ones included, oldest first.
    public func list() throws -> [Share] {
        try Self.parse(try state.read("shares.json"), at: state.location)
    }

    private static func parse(_ text: String?, at location: String) throws -> [Share] {
        guard let text, !text.isEmpty else { return [] }
        guard let shares = try? JSONDecoder().decode([Share].self, from: Data(text.utf8)) else {
            throw WebStateError(operation: "parse", path: location + "/shares.json", errno: .invalidArgument)
        }
        return shares
    }

    /// Records a new share of `path` until `expires`; returns it and its link token.
    public func create(path: [String], expires: Date) throws -> (share: Share, link: String) {
        var bytes = [UInt8](repeating: 0, count: 8)
        var generator = SystemRandomNumberGenerator()
        for i in bytes.indices { bytes[i] = generator.next() }
        let share = Share(id: bytes.hexString, path: path, expires: Int64(expires.timeIntervalSince1970),
                          created: Int64(Date().timeIntervalSince1970))
        try update { $0.append(share) }
        return (share, link(share))
    }

    /// Removes the share `id`; false when there is none.
    public func revoke(id: String) throws -> Bool {
        var found = false
        try update { shares in
            let before = shares.count
            shares.removeAll { $0.id == id }
            found = shares.count != before
        }
        return found
    }

    /// The link token of `share`.
    public func link(_ share: Share) -> String { "\(share.id)-\(share.expires)-\(mac(share))" }

    /// Checks a link token against the registry, its signature and the clock.
    public func check(_ token: String, now: Date = Date()) -> ShareCheck {
        let parts = token.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].utf8.count == 16, let expires = Int64(parts[1]),
              let shares = try? list(), let share = shares.first(where: { $0.id == parts[0] }), share.expires == expires,
              Signature.equal(Array(mac(share).utf8), Array(parts[2].utf8)) else { return .refused }
        return Double(expires) <= now.timeIntervalSince1970 ? .expired : .valid(share)
    }

    private func mac(_ share: Share) -> String {
        let message = "share:\(share.id):\(share.expires):" + share.path.joined(separator: "/")
        return HMAC.sha256(key: secret, message: Array(message.utf8)).hexString
    }

    private func update(_ change: (inout [Share]) -> Void) throws {
        try state.update("shares.json") { text in
            var shares = try Self.parse(text, at: state.location)
            change(&shares)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            let data = (try? encoder.encode(shares)) ?? Data("[]".utf8)
            return String(decoding: data, as: UTF8.self) + "\n"
        }
    }

    /// Parses a lifetime such as `7d`, `12h`, `30m`, `90s` (at most a year); nil when malformed.
    public static func lifetime(_ text: String) -> TimeInterval? {
        guard let unit = text.last, let n = Int(text.dropLast()), n > 0 else { return nil }
        let seconds: Int
        switch unit {
        case "d": seconds = n.multipliedReportingOverflow(by: 86_400).partialValue
        case "h": seconds = n.multipliedReportingOverflow(by: 3600).partialValue
        case "m": seconds = n.multipliedReportingOverflow(by: 60).partialValue
        case "s": seconds = n
        default: return nil
        }
        guard n <= 366 * 86_400, seconds > 0, seconds <= 366 * 86_400 else { return nil }
        return TimeInterval(seconds)
    }
}
