import Foundation

/// One part of a streamed multipart write, as the transport reads its request body: the next `length` bytes of
/// a ``PartPump``, hashed on the way into the whole file's running digest.
///
/// A transport thread reads it synchronously, start to end, and the next part's stream is made only after this
/// part's request ended, so the digest is never fed by two threads at once. No run loop, no delegate.
final class PartStream: InputStream {
    private let pump: PartPump
    private var remaining: Int64
    private let digest: DigestRecorder
    private var status: Stream.Status = .notOpen
    private var failure: (any Error)?

    init(pump: PartPump, length: Int64, digest: DigestRecorder) {
        self.pump = pump
        remaining = length
        self.digest = digest
        super.init(data: Data())
    }

    override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength len: Int) -> Int {
        guard remaining > 0, len > 0 else {
            status = .atEnd
            return 0
        }
        let want = Int(min(Int64(len), remaining))
        do {
            let n = try pump.take(into: UnsafeMutableRawBufferPointer(start: buffer, count: want))
            // Ended short: the transport sees a body shorter than its length and fails the part.
            if n == 0 { status = .atEnd }
            digest.update(UnsafeRawBufferPointer(start: buffer, count: n))
            remaining -= Int64(n)
            return n
        } catch {
            failure = error
            status = .error
            return -1
        }
    }

    override func open() { status = .open }
    override func close() { status = .closed }
    override var streamStatus: Stream.Status { status }
    override var streamError: (any Error)? { failure }
    override var hasBytesAvailable: Bool { remaining > 0 }

    override func getBuffer(_ buffer: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>, length len: UnsafeMutablePointer<Int>) -> Bool {
        false
    }

    override var delegate: (any StreamDelegate)? {
        get { nil }
        set {}
    }

    #if os(Linux)
    override func property(forKey key: Stream.PropertyKey) -> AnyObject? { nil }
    override func setProperty(_ property: AnyObject?, forKey key: Stream.PropertyKey) -> Bool { false }
    #else
    override func property(forKey key: Stream.PropertyKey) -> Any? { nil }
    override func setProperty(_ property: Any?, forKey key: Stream.PropertyKey) -> Bool { false }
    #endif

    override func schedule(in aRunLoop: RunLoop, forMode mode: RunLoop.Mode) {}
    override func remove(from aRunLoop: RunLoop, forMode mode: RunLoop.Mode) {}
}
