import Foundation

/// Hashes a large body on a thread of its own, beside the connection thread that receives and writes it.
///
/// The connection thread fills one of a few buffers, hands it over (``handOver(_:)``) and writes it while the
/// hashing thread feeds it to the recorder. One hand-off per buffer, never per socket read, and bounded: when
/// every buffer waits to be hashed, the connection thread does not sleep on the hashing thread but hashes the
/// oldest buffer itself (in order: one thread hashes at a time), so a hashing thread the scheduler keeps waiting
/// (a loaded machine) costs no more than hashing inline. Why a thread: on a quiet machine the SHA-256 of a body
/// costs about as much CPU as receiving and writing it; inline it adds straight to every PUT's time, beside it
/// it runs on the other core.
final class HashRing: @unchecked Sendable {
    // @unchecked: the buffer being filled belongs to the connection thread; queued buffers, `head`, `queued`,
    // `hashing` and `closed` are guarded by `condition`; a buffer is hashed (and the recorder used) only by the
    // thread that set `hashing`, and after `finish()` by nobody but the caller.
    static let count = 4
    static let bufferSize = 256 << 10

    private let buffers: [UnsafeMutableRawBufferPointer]
    private var lengths: [Int]
    private let condition = NSCondition()
    private let recorder: DigestRecorder
    private var head = 0
    private var queued = 0
    private var hashing = false
    private var closed = false
    /// The buffer the connection thread fills.
    private var next = 0

    /// Starts the hashing thread; `recorder` must not be touched elsewhere until ``finish()``.
    init(recorder: DigestRecorder) {
        self.recorder = recorder
        buffers = (0 ..< Self.count).map { _ in .allocate(byteCount: Self.bufferSize, alignment: 64) }
        lengths = Array(repeating: 0, count: Self.count)
        let thread = Thread { [self] in hashUntilClosed() }
        thread.name = "skylift-hash"
        thread.start()
    }

    deinit { for b in buffers { b.deallocate() } }

    /// The buffer to fill now.
    var buffer: UnsafeMutableRawBufferPointer { buffers[next] }

    /// Queues the first `count` bytes of ``buffer`` for hashing and returns the next buffer to fill (hashing
    /// the oldest queued one here when none is free). The bytes queued must not change until then.
    func handOver(_ count: Int) -> UnsafeMutableRawBufferPointer {
        condition.lock()
        lengths[next] = count
        queued += 1
        next = (next + 1) % Self.count
        condition.broadcast()
        while queued == Self.count {
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
        head = (head + 1) % Self.count
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
