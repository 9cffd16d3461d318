import Foundation
import Synchronization

/// Slows down guessing of the token: wrong tokens (the sign-in form, `?token=`, one-time codes, and
/// `Authorization: Bearer`/`Basic`) are counted per client, and past ``freeFailures`` each further wrong one
/// is answered only after a delay that doubles with every failure, from 1 s up to ``maxDelay``.
///
/// The delay is spent on the connection's own thread before the `401` goes out, and a right token is never
/// delayed or refused: refusing every attempt while a client is in its penalty would let anyone who can send
/// a wrong token lock every client sharing its key out. Guesses in parallel are bounded by the connection
/// limit: each one holds its connection for the delay.
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
    }

    private let table = Mutex<[String: Record]>([:])

    /// The key every request is counted under today: the HTTP layer does not give handlers the peer's
    /// address, so all clients share one count. A right token therefore does not reset it (any client's
    /// success would clear an attacker's count); it is forgotten after ``forgetAfter`` without failures.
    public static let everyClient = "*"

    public init() {}

    /// The delay before answering the `failures`-th wrong token in a row: none for the first
    /// ``freeFailures``, then 1 s, 2 s, 4 s, … up to ``maxDelay``.
    public static func delay(afterFailures failures: Int) -> TimeInterval {
        guard failures > freeFailures else { return 0 }
        let doublings = min(failures - freeFailures - 1, 16)
        return min(maxDelay, TimeInterval(1 << doublings))
    }

    /// Records a wrong token from `client` and returns how long to wait before answering it.
    public func failed(_ client: String, now: Date = Date()) -> TimeInterval {
        let t = now.timeIntervalSince1970
        return table.withLock { clients in
            var record = clients[client].flatMap { t - $0.last < Self.forgetAfter ? $0 : nil } ?? Record(failures: 0, last: t)
            record.failures = min(record.failures + 1, 1 << 20)
            record.last = t
            if clients[client] == nil && clients.count >= Self.capacity { Self.makeRoom(&clients, now: t) }
            clients[client] = record
            return Self.delay(afterFailures: record.failures)
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

    /// Waits `delay` seconds on the calling thread (the request's connection thread).
    public static func wait(_ delay: TimeInterval) {
        guard delay > 0 else { return }
        usleep(UInt32(min(delay, maxDelay) * 1_000_000))
    }
}
