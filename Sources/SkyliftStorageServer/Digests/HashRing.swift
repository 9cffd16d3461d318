import Foundation

/// Hashes a large body on a thread of its own, beside the connection thread that receives and writes it.
///
/// The connection thread fills one of a few 1 MiB buffers (four while the server's ``HashRingBudget`` lasts,
/// else two), hands it over (``handOver(_:)``) and writes it while the hashing thread feeds it to the recorder.
/// One hand-off per buffer, never per socket read: 1 MiB buffers wake the hashing thread a quarter as often as
/// 256 KiB ones did, and give it three of them of slack; on two cores shared with the client the connection
/// thread then stopped hashing for it (BENCHMARKS.md, "serve", digest cost). Bounded: when every buffer waits to be
/// hashed, the connection thread does not sleep on the hashing thread but hashes the oldest buffer itself (in
/// order: one thread hashes at a time), so a hashing thread the scheduler keeps waiting (a loaded machine)
/// costs no more than hashing inline. Why a thread: on a quiet machine the SHA-256 of a body costs about as much
/// CPU as receiving and writing it; inline it adds straight to every PUT's time, beside it it runs on the other
/// core.
final class HashRing: @unchecked Sendable {
    // @unchecked: the buffer being filled belongs to the connection thread; queued buffers, `head`, `queued`,
    // `hashing` and `closed` are guarded by `condition`; a buffer is hashed (and the recorder used) only by the
    // thread that set `hashing`, and after `finish()` by nobody but the caller.
    /// Buffers a ring has when the budget grants its extra ones.
    static let fullCount = 4
    /// Buffers every ring has.
    static let leastCount = 2
    static let bufferSize = 1 << 20

    private let buffers: [UnsafeMutableRawBufferPointer]
    private let budget: HashRingBudget?
    private let extra: Int
    private var lengths: [Int]
    private let condition = NSCondition()
    private let recorder: DigestRecorder
    private var head = 0
    private var queued = 0
    private var hashing = false
    private var closed = false
    /// The buffer the connection thread fills.
    private var next = 0

    /// Starts the hashing thread; `recorder` must not be touched elsewhere until ``finish()``. Without a
    /// `budget` the ring has ``fullCount`` buffers.
    init(recorder: DigestRecorder, budget: HashRingBudget?) {
        self.recorder = recorder
        self.budget = budget
        let wanted = Self.fullCount - Self.leastCount
        extra = budget?.take(upTo: wanted) ?? wanted
        buffers = (0 ..< Self.leastCount + extra).map { _ in .allocate(byteCount: Self.bufferSize, alignment: 64) }
        lengths = Array(repeating: 0, count: buffers.count)
        let thread = Thread { [self] in hashUntilClosed() }
        thread.name = "skylift-hash"
        thread.start()
    }

    deinit {
        for b in buffers { b.deallocate() }
        budget?.giveBack(extra)
    }

    /// How many buffers this ring has.
    var count: Int { buffers.count }

    /// The buffer to fill now.
    var buffer: UnsafeMutableRawBufferPointer { buffers[next] }

    /// Queues the first `count` bytes of ``buffer`` for hashing and returns the next buffer to fill (hashing
    /// the oldest queued one here when none is free). The bytes queued must not change until then.
    func handOver(_ count: Int) -> UnsafeMutableRawBufferPointer {
        condition.lock()
        lengths[next] = count
        queued += 1
        next = (next + 1) % buffers.count
        condition.broadcast()
        while queued == buffers.count {
            if hashing { condition.wait() } else { hashHead() }
        }
        condition.unlock()
        return buffers[next]
    }

    /// Waits until everything queued is hashed (helping); the recorder is the caller's again.
    func finish() {
        condition.lock()
        closed = true
        condition.broadcast()
        while queued > 0 || hashing {
            if hashing { condition.wait() } else { hashHead() }
        }
        condition.unlock()
    }

    /// Lets the hashing thread end once it has hashed what is queued; does not wait (the body is thrown away).
    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }

    /// Hashes the oldest queued buffer, outside the lock. Called with the lock held, `hashing` false and
    /// `queued` > 0; returns with the lock held.
    private func hashHead() {
        hashing = true
        let index = head
        condition.unlock()
        recorder.update(UnsafeRawBufferPointer(rebasing: buffers[index][0 ..< lengths[index]]))
        condition.lock()
        hashing = false
        head = (head + 1) % buffers.count
        queued -= 1
        condition.broadcast()
    }

    private func hashUntilClosed() {
        condition.lock()
        while true {
            if queued > 0 && !hashing {
                hashHead()
            } else if closed && queued == 0 {
                break
            } else {
                condition.wait()
            }
        }
        condition.unlock()
    }
}
