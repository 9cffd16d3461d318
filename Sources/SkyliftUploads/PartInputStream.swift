import SkyliftBlobStream
import Foundation
import Synchronization

/// Bytes handed to the transport so far, shared between the stream (curl's thread) and the progress sampler.
public final class SentCounter: Sendable {
    private let value = Atomic<Int64>(0)
    public init() {}
    public func add(_ n: Int64) { value.add(n, ordering: .relaxed) }
    public func set(_ n: Int64) { value.store(n, ordering: .relaxed) }
    public var total: Int64 { value.load(ordering: .relaxed) }
}

/// An `InputStream` over another one that stops after `limit` bytes and counts what passes through.
///
/// The transport reads it from one thread at a time; `InputStream` itself is not Sendable, so the wrapper is
/// handed over by the opener closure and never shared.
final class PartInputStream: ForwardingInputStream {
    private var remaining: Int64
    private let counter: SentCounter
    /// Counts this stream's bytes alone, when the caller needs to know what one attempt streamed.
    private let attempt: SentCounter?
    private var status: Stream.Status = .notOpen

    init(base: InputStream, limit: Int64, counter: SentCounter, attempt: SentCounter? = nil) {
        self.remaining = limit
        self.counter = counter
        self.attempt = attempt
        super.init(base: base)
    }

    override func open() {
        base.open()
        status = .open
    }

    override func close() {
        base.close()
        status = .closed
    }

    override var streamStatus: Stream.Status {
        if status == .open && remaining == 0 { return .atEnd }
        if base.streamStatus == .error { return .error }
        return status
    }

    override var hasBytesAvailable: Bool { remaining > 0 && base.hasBytesAvailable }

    override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength len: Int) -> Int {
        guard remaining > 0 else { return 0 }
        let n = base.read(buffer, maxLength: Int(min(Int64(len), remaining)))
        if n > 0 {
            remaining -= Int64(n)
            counter.add(Int64(n))
            attempt?.add(Int64(n))
        }
        return n
    }
}
