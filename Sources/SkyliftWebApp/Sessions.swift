import Foundation
import SkyliftHashing
import SkyliftCore
import Synchronization

/// Signed-in browsers. A session cookie is `<id>.<mac>`: a random id and its HMAC-SHA256 under the server
/// secret, never the token itself. The ids are also kept in the state (`sessions`), so signing out (or deleting
/// it) revokes a cookie even though its MAC still verifies, and every instance sharing the state (a bucket's)
/// knows every session: the list is read again when a cookie names a session not in it, and at most
/// five seconds (`freshness`) after it was last read, so a sign-out on one instance holds on the others within that.
public final class Sessions: Sendable {
    /// How long a session lives after it was made.
    public static let lifetime: TimeInterval = 30 * 24 * 3600
    /// At most this many sessions are kept; the oldest goes first.
    static let capacity = 1000
    /// Seconds a read of the session list is trusted.
    static let freshness: TimeInterval = 5

    private let secret: [UInt8]
    private let state: any WebStateStore
    /// Session id → creation time (seconds since 1970), as last read or changed here, and when it was read; and
    /// the ids with a right MAC found in no list read since, with when (so a revoked cookie does not cause a read
    /// on every request).
    private let cache: Mutex<(live: [String: Double], read: Double, absent: [String: Double])>

    public init(state: any WebStateStore, secret: [UInt8]) {
        self.state = state
        self.secret = secret
        let now = Date().timeIntervalSince1970
        cache = Mutex((Self.parse((try? state.read("sessions")) ?? nil, now: now), now, [:]))
    }

    /// Starts a session and returns its cookie value.
    public func create() -> String {
        var bytes = [UInt8](repeating: 0, count: 16)
        var generator = SystemRandomNumberGenerator()
        for i in bytes.indices { bytes[i] = generator.next() }
        let id = bytes.hexString
        let now = Date().timeIntervalSince1970
        var stored: [String: Double]?
        // A failed write only means the session does not survive a restart, nor reach other instances; it still
        // works here now.
        try? state.update("sessions") { text in
            var sessions = Self.parse(text, now: now)
            if sessions.count >= Self.capacity, let oldest = sessions.min(by: { $0.value < $1.value }) {
                sessions[oldest.key] = nil
            }
            sessions[id] = now
            stored = sessions
            return Self.format(sessions)
        }
        cache.withLock { cache in
            if let stored { (cache.live, cache.read) = (stored, now) } else { cache.live[id] = now }
        }
        return id + "." + mac(id)
    }

    /// True when `cookie` is a session this server (or one sharing its state) made and has not revoked or expired.
    public func isValid(_ cookie: String) -> Bool {
        guard let id = verifiedID(cookie) else { return false }
        let now = Date().timeIntervalSince1970
        let (created, read, missed) = cache.withLock { ($0.live[id], $0.read, $0.absent[id]) }
        // Only a cookie with a right MAC gets here, so only sessions some instance made cause a read: one made on
        // another instance since the last read is found at once.
        let unknown = created == nil && missed.map { now - $0 > Self.freshness } ?? true
        if now - read > Self.freshness || unknown {
            // A list that cannot be read now leaves the last one read in use.
            if let live = try? Self.parse(state.read("sessions"), now: now) {
                cache.withLock { cache in
                    (cache.live, cache.read) = (live, now)
                    if cache.absent.count >= Self.capacity { cache.absent = [:] }
                    cache.absent[id] = live[id] == nil ? now : nil
                }
                return live[id].map { now - $0 < Self.lifetime } ?? false
            }
        }
        return created.map { now - $0 < Self.lifetime } ?? false
    }

    /// Ends the session of `cookie`, if it is one.
    public func revoke(_ cookie: String) {
        guard let id = verifiedID(cookie) else { return }
        let now = Date().timeIntervalSince1970
        try? state.update("sessions") { text in
            var sessions = Self.parse(text, now: now)
            guard sessions.removeValue(forKey: id) != nil else { return nil }
            return Self.format(sessions)
        }
        _ = cache.withLock { $0.live.removeValue(forKey: id) }
    }

    /// The unexpired sessions of the stored list.
    private static func parse(_ text: String?, now: Double) -> [String: Double] {
        var sessions: [String: Double] = [:]
        for line in text?.split(separator: "\n") ?? [] {
            let parts = line.split(separator: " ")
            guard parts.count == 2, let created = Double(parts[1]), now - created < Self.lifetime, Self.isID(parts[0]) else { continue }
            sessions[String(parts[0])] = created
        }
        return sessions
    }

    private static func format(_ sessions: [String: Double]) -> String {
        sessions.sorted { $0.key < $1.key }.map { "\($0.key) \(Int($0.value))\n" }.joined()
    }

    private func verifiedID(_ cookie: String) -> String? {
        let parts = cookie.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, Self.isID(parts[0]) else { return nil }
        let id = String(parts[0])
        return Signature.equal(Array(mac(id).utf8), Array(parts[1].utf8)) ? id : nil
    }

    private func mac(_ id: String) -> String {
        HMAC.sha256(key: secret, message: Array("session:\(id)".utf8)).hexString
    }

    private static func isID(_ s: Substring) -> Bool { s.utf8.count == 32 && s.utf8.allSatisfy { Hex.value(of: $0) != nil } }
}

/// Comparisons of secrets that take the same time wherever the first difference is.
enum Signature {
    static func equal(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for (x, y) in zip(a, b) { difference |= x ^ y }
        return difference == 0
    }
}
