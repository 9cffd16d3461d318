import Foundation
import SkyliftHashing
import SkyliftCore
import Synchronization

/// Signed-in browsers. A session cookie is `<id>.<mac>`: a random id and its HMAC-SHA256 under the server
/// secret, never the token itself. The ids are also kept in the state folder (`sessions`, 0600), so signing
/// out (or deleting the file) revokes a cookie even though its MAC still verifies.
public final class Sessions: Sendable {
    /// How long a session lives after it was made.
    public static let lifetime: TimeInterval = 30 * 24 * 3600
    /// At most this many sessions are kept; the oldest goes first.
    static let capacity = 1000

    private let secret: [UInt8]
    private let state: WebState
    /// Session id → creation time (seconds since 1970).
    private let live: Mutex<[String: Double]>

    public init(state: WebState, secret: [UInt8]) {
        self.state = state
        self.secret = secret
        var loaded: [String: Double] = [:]
        let now = Date().timeIntervalSince1970
        for line in ((try? state.read("sessions")) ?? nil)?.split(separator: "\n") ?? [] {
            let parts = line.split(separator: " ")
            guard parts.count == 2, let created = Double(parts[1]), now - created < Self.lifetime,
                  Self.isID(parts[0]) else { continue }
            loaded[String(parts[0])] = created
        }
        live = Mutex(loaded)
    }

    /// Starts a session and returns its cookie value.
    public func create() -> String {
        var bytes = [UInt8](repeating: 0, count: 16)
        var generator = SystemRandomNumberGenerator()
        for i in bytes.indices { bytes[i] = generator.next() }
        let id = bytes.hexString
        let now = Date().timeIntervalSince1970
        let snapshot = live.withLock { sessions in
            sessions = sessions.filter { now - $0.value < Self.lifetime }
            if sessions.count >= Self.capacity, let oldest = sessions.min(by: { $0.value < $1.value }) {
                sessions[oldest.key] = nil
            }
            sessions[id] = now
            return sessions
        }
        persist(snapshot)
        return id + "." + mac(id)
    }

    /// True when `cookie` is a session this server made and has not revoked or expired.
    public func isValid(_ cookie: String) -> Bool {
        guard let id = verifiedID(cookie) else { return false }
        let now = Date().timeIntervalSince1970
        return live.withLock { $0[id].map { now - $0 < Self.lifetime } ?? false }
    }

    /// Ends the session of `cookie`, if it is one.
    public func revoke(_ cookie: String) {
        guard let id = verifiedID(cookie) else { return }
        let snapshot = live.withLock { sessions -> [String: Double]? in
            sessions.removeValue(forKey: id) == nil ? nil : sessions
        }
        if let snapshot { persist(snapshot) }
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

    private func persist(_ sessions: [String: Double]) {
        let text = sessions.map { "\($0.key) \(Int($0.value))\n" }.joined()
        // A failed write only means the session does not survive a restart; it still works now.
        try? state.replace("sessions", with: text)
    }
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
