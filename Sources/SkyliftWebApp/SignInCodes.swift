import Foundation
import SkyliftHashing
import SkyliftCore

/// One-time sign-in codes: `GET /signin?code=C` starts a session once, within ``lifetime`` of the code being
/// made, so the link `skylift serve` prints leaves nothing reusable in a terminal's scrollback or a browser's
/// history. The codes live in the state folder (`signin-codes`, 0600), each as the SHA-256 of the code with
/// its expiry, changed under a lock: the serving process makes one at start, and `skylift signin` can add one
/// for a server that is already running. A code is deleted as it is used.
public struct SignInCodes: Sendable {
    /// How long a code stays usable.
    public static let lifetime: TimeInterval = 600
    /// At most this many unused codes are kept; the oldest goes first.
    static let capacity = 64
    /// A code is 16 random bytes in hex.
    static let length = 32

    private let state: any WebStateStore

    public init(state: any WebStateStore) { self.state = state }

    /// Records a new code and returns it.
    public func create(now: Date = Date()) throws -> String {
        var bytes = [UInt8](repeating: 0, count: Self.length / 2)
        var generator = SystemRandomNumberGenerator()
        for i in bytes.indices { bytes[i] = generator.next() }
        let code = bytes.hexString
        try update(now: now) { codes in
            codes.append((Self.digest(code), Int64(now.timeIntervalSince1970 + Self.lifetime)))
            if codes.count > Self.capacity { codes.removeFirst(codes.count - Self.capacity) }
            return true
        }
        return code
    }

    /// True, once, for a code made here that has not expired; the code is used up.
    public func redeem(_ code: String, now: Date = Date()) -> Bool {
        guard code.utf8.count == Self.length, code.utf8.allSatisfy({ Hex.value(of: $0) != nil }) else { return false }
        let wanted = Array(Self.digest(code.lowercased()).utf8)
        var found = false
        _ = try? update(now: now) { codes in
            found = false // the change may run again on a newer list
            guard let i = codes.firstIndex(where: { Signature.equal(Array($0.digest.utf8), wanted) }) else { return false }
            codes.remove(at: i)
            found = true
            return true
        }
        return found
    }

    private static func digest(_ code: String) -> String { Digest.hash(.sha256, Array(code.utf8)).hexString }

    /// Reads the unexpired codes, lets `change` edit them, and writes them back when it says so.
    private func update(now: Date, _ change: (inout [(digest: String, expires: Int64)]) -> Bool) throws {
        try state.update("signin-codes") { text in
            var codes: [(digest: String, expires: Int64)] = []
            for line in (text ?? "").split(separator: "\n") {
                let parts = line.split(separator: " ")
                guard parts.count == 2, parts[0].utf8.count == 64, let expires = Int64(parts[1]),
                      Double(expires) > now.timeIntervalSince1970 else { continue }
                codes.append((String(parts[0]), expires))
            }
            guard change(&codes) else { return nil }
            return codes.map { "\($0.digest) \($0.expires)\n" }.joined()
        }
    }
}
