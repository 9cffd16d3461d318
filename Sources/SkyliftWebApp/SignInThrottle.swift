import Foundation
import Synchronization

/// Slows down guessing of the token: wrong tokens (the sign-in form, `?token=`, one-time codes, and
/// `Authorization: Bearer`/`Basic`) are counted per client address, and past ``freeFailures`` each further wrong
/// one opens a penalty that doubles with every failure, from 1 s up to ``maxDelay``. A wrong token sent inside
/// the penalty is answered at once with `429` and `Retry-After` (and counted); nothing waits on a server thread,
/// so guessing costs the server no more than any refused request. A right token is never delayed or refused,
/// and clears its client's count.
///
/// Memory is bounded: at most ``capacity`` clients are remembered (the one idle longest is forgotten first),
/// and a client with no failure for ``forgetAfter`` is forgotten.
public final class SignInThrottle: Sendable {
    /// Wrong tokens a client may send before its answers are delayed (typos, a client retrying once).
    public static let freeFailures = 5
    /// The longest delay.
    public static let maxDelay: TimeInterval = 8
    /// A client with no wrong token for this long starts again from zero.
    public static let forgetAfter: TimeInterval = 900
    /// Most clients remembered at once.
    public static let capacity = 4096

    private struct Record {
        var failures: Int
        var last: TimeInterval
        /// No wrong token is weighed before this time; one that comes earlier gets 429.
        var notBefore: TimeInterval = 0
    }

    private let table = Mutex<[String: Record]>([:])

    /// The key for a request whose client address is unknown (made up in code, not from a connection).
    public static let unknownClient = "*"

    public init() {}

    /// The delay before answering the `failures`-th wrong token in a row: none for the first
    /// ``freeFailures``, then 1 s, 2 s, 4 s, … up to ``maxDelay``.
    public static func delay(afterFailures failures: Int) -> TimeInterval {
        guard failures > freeFailures else { return 0 }
        let doublings = min(failures - freeFailures - 1, 16)
        return min(maxDelay, TimeInterval(1 << doublings))
    }

    /// Records a wrong token from `client` and returns the penalty it opens: how long that client's next wrong
    /// token would be refused with 429.
    @discardableResult
    public func failed(_ client: String, now: Date = Date()) -> TimeInterval {
        let t = now.timeIntervalSince1970
        return table.withLock { clients in
            var record = clients[client].flatMap { t - $0.last < Self.forgetAfter ? $0 : nil } ?? Record(failures: 0, last: t)
            record.failures = min(record.failures + 1, 1 << 20)
            record.last = t
            let delay = Self.delay(afterFailures: record.failures)
            record.notBefore = t + delay
            if clients[client] == nil && clients.count >= Self.capacity { Self.makeRoom(&clients, now: t) }
            clients[client] = record
            return delay
        }
    }

    /// Seconds left of `client`'s penalty, nil when it has none: a wrong token now gets 429 with this wait.
    public func penaltyLeft(_ client: String, now: Date = Date()) -> TimeInterval? {
        let t = now.timeIntervalSince1970
        return table.withLock { clients in
            guard let record = clients[client], record.notBefore > t else { return nil }
            return record.notBefore - t
        }
    }

    /// A right token from `client`: it starts again from zero.
    public func succeeded(_ client: String) {
        _ = table.withLock { $0.removeValue(forKey: client) }
    }

    /// Wrong tokens counted for `client` now (0 once forgotten).
    public func failures(_ client: String, now: Date = Date()) -> Int {
        let t = now.timeIntervalSince1970
        return table.withLock { clients in clients[client].map { t - $0.last < Self.forgetAfter ? $0.failures : 0 } ?? 0 }
    }

    /// Clients remembered now.
    public var count: Int { table.withLock { $0.count } }

    /// Forgets the expired clients, or when none is, the one idle longest.
    private static func makeRoom(_ clients: inout [String: Record], now: TimeInterval) {
        let before = clients.count
        clients = clients.filter { now - $0.value.last < forgetAfter }
        if clients.count == before, let oldest = clients.min(by: { $0.value.last < $1.value.last }) {
            clients[oldest.key] = nil
        }
    }

}
