import CMicroHTTPD
import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One open connection as the limits see it. Stored (retained) in libmicrohttpd's socket context from the
/// moment the connection opens until it closes.
final class ConnectionSlot: Sendable {
    /// Where the connection stands; only these moves exist: waiting → busy → waiting …, and waiting → closing.
    enum State: UInt8, AtomicRepresentable {
        /// No request in progress: before the first head is complete, or idle between requests.
        case waiting
        /// A request head was read and its answer is not yet complete.
        case busy
        /// Chosen to be closed (to admit a newer connection, or past a deadline); its socket was shut.
        case closing
    }

    /// Accept order: a smaller serial is an older connection.
    let serial: UInt64
    let fd: Int32
    let address: PeerAddress
    private let state = Atomic<State>(.waiting)
    /// When the connection last became `waiting` (uptime nanoseconds).
    private let waitingSince = Atomic<UInt64>(0)
    /// True once a request finished on it: the head deadline then also grants the keep-alive time.
    private let reused = Atomic<Bool>(false)
    /// Opened past every limit with nothing to close: its first request gets `503` and it closes.
    let refused: Bool

    init(serial: UInt64, fd: Int32, address: PeerAddress, refused: Bool) {
        self.serial = serial
        self.fd = fd
        self.address = address
        self.refused = refused
        waitingSince.store(DispatchTime.now().uptimeNanoseconds, ordering: .relaxed)
    }

    var current: State { state.load(ordering: .acquiring) }

    /// A request head arrived. False when the connection is being closed: the request is not served.
    func begin() -> Bool {
        state.compareExchange(expected: .waiting, desired: .busy, ordering: .acquiringAndReleasing).exchanged
    }

    /// The request is over; the connection waits for the next head.
    func end() {
        reused.store(true, ordering: .relaxed)
        waitingSince.store(DispatchTime.now().uptimeNanoseconds, ordering: .relaxed)
        _ = state.compareExchange(expected: .busy, desired: .waiting, ordering: .acquiringAndReleasing)
    }

    /// Marks a waiting connection for closing; false when it is busy (or already closing).
    func claimForClosing() -> Bool {
        state.compareExchange(expected: .waiting, desired: .closing, ordering: .acquiringAndReleasing).exchanged
    }

    /// True when it has waited for a complete head longer than its deadline allows.
    ///
    /// `now` is read before the sweep takes the table's lock, and a loop may meanwhile accept a connection or end a
    /// request and stamp a later time: such a connection has waited no time at all. (Subtracting with wrap-around
    /// made it look as if it had waited for ages, and the sweep shut a connection that had just been served or
    /// accepted: a client saw a reset or an empty reply about once in 200,000 requests.)
    func isPastHeadDeadline(now: UInt64, header: UInt64, keepAlive: UInt64) -> Bool {
        guard current == .waiting else { return false }
        let allowed = reused.load(ordering: .relaxed) ? header &+ keepAlive : header
        let since = waitingSince.load(ordering: .relaxed)
        return now > since && now - since > allowed
    }

    /// Ends the connection from outside its loop: the loop sees the end of the stream and closes it.
    func shut() { _ = shutdown(fd, Int32(SHUT_RDWR)) }
}

/// The open connections and the limits on them: at most `total` in all and `perAddress` from one peer.
///
/// A new connection past a limit makes room by closing the oldest connection with no request in progress
/// (from the same peer for the per-address limit): an idle keep-alive connection or one still sending its
/// head. Only when every counted connection is busy is the new one refused, with `503` and `Retry-After` on
/// its first request; it is never reset unanswered. A sweep closes connections that take longer than the head
/// deadline to send a complete head (a slow drip of header bytes keeps a socket active, so libmicrohttpd's
/// idle timeout alone never fires for it).
final class ConnectionTable: Sendable {
    struct Limits: Sendable {
        var total: Int
        var perAddress: Int
        var headerTimeout: UInt64
        var keepAliveTimeout: UInt64
    }

    private struct Table {
        var slots: [UInt64: ConnectionSlot] = [:]
        var perAddress: [PeerAddress: Int] = [:]
        var nextSerial: UInt64 = 0
    }

    let limits: Limits
    private let table = Mutex(Table())
    private let acceptedCount = Atomic<Int>(0)
    private let closedForRoom = Atomic<Int>(0)
    private let refusedCount = Atomic<Int>(0)

    init(limits: Limits) { self.limits = limits }

    var accepted: Int { acceptedCount.load(ordering: .relaxed) }
    /// Idle connections closed to admit newer ones, and connections closed past the head deadline.
    var closedToMakeRoom: Int { closedForRoom.load(ordering: .relaxed) }
    /// Connections answered `503` because every counted one was busy.
    var refused: Int { refusedCount.load(ordering: .relaxed) }
    /// Connections counted against the limits now.
    var open: Int { table.withLock { $0.slots.count } }
    /// Counted connections with a request in progress now (the rest wait for a head and may be closed for room).
    var busy: Int { table.withLock { t in t.slots.values.reduce(0) { $0 + ($1.current == .busy ? 1 : 0) } } }

    /// Counts a new connection, closing an older idle one when a limit is reached.
    func opened(fd: Int32, address: PeerAddress) -> ConnectionSlot {
        acceptedCount.add(1, ordering: .relaxed)
        let (slot, victims) = table.withLock { t -> (ConnectionSlot, [ConnectionSlot]) in
            var victims: [ConnectionSlot] = []
            let fromPeer = t.perAddress[address, default: 0]
            if fromPeer >= limits.perAddress, let v = Self.oldestWaiting(in: t, from: address) { victims.append(v) }
            if t.slots.count - victims.count >= limits.total, let v = Self.oldestWaiting(in: t, from: nil, except: victims) {
                victims.append(v)
            }
            for v in victims { Self.remove(v, from: &t) }
            let full = t.perAddress[address, default: 0] >= limits.perAddress || t.slots.count >= limits.total
            t.nextSerial += 1
            let slot = ConnectionSlot(serial: t.nextSerial, fd: fd, address: address, refused: full)
            // A refused connection is not counted: it leaves after one answer.
            if !full { Self.insert(slot, into: &t) }
            return (slot, victims)
        }
        if slot.refused { refusedCount.add(1, ordering: .relaxed) }
        closedForRoom.add(victims.count, ordering: .relaxed)
        for v in victims { v.shut() }
        return slot
    }

    /// The connection closed: it no longer counts (if it still did).
    func closed(_ slot: ConnectionSlot) {
        table.withLock { t in
            if t.slots[slot.serial] != nil { Self.remove(slot, from: &t) }
        }
    }

    /// Closes every connection past the head deadline; called about once a second.
    func sweep() {
        let now = DispatchTime.now().uptimeNanoseconds
        let late = table.withLock { t -> [ConnectionSlot] in
            let late = t.slots.values.filter {
                $0.isPastHeadDeadline(now: now, header: limits.headerTimeout, keepAlive: limits.keepAliveTimeout) && $0.claimForClosing()
            }
            for slot in late { Self.remove(slot, from: &t) }
            return late
        }
        closedForRoom.add(late.count, ordering: .relaxed)
        for slot in late { slot.shut() }
    }

    /// The oldest connection with no request in progress (from `peer` when given), claimed for closing. One
    /// pass per try: a connection that turns busy between the look and the claim is passed over.
    private static func oldestWaiting(in t: Table, from peer: PeerAddress?, except: [ConnectionSlot] = []) -> ConnectionSlot? {
        var skipped = except
        for _ in 0 ..< 4 {
            var oldest: ConnectionSlot?
            for slot in t.slots.values where slot.current == .waiting && (peer == nil || slot.address == peer) {
                if slot.serial < (oldest?.serial ?? .max), !skipped.contains(where: { $0 === slot }) { oldest = slot }
            }
            guard let oldest else { return nil }
            if oldest.claimForClosing() { return oldest }
            skipped.append(oldest)
        }
        return nil
    }

    private static func insert(_ slot: ConnectionSlot, into t: inout Table) {
        t.slots[slot.serial] = slot
        t.perAddress[slot.address, default: 0] += 1
    }

    private static func remove(_ slot: ConnectionSlot, from t: inout Table) {
        t.slots[slot.serial] = nil
        let left = t.perAddress[slot.address, default: 1] - 1
        t.perAddress[slot.address] = left > 0 ? left : nil
    }
}
