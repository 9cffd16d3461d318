import Foundation

/// An `InputStream` that hands out the bytes of another stream, for wrappers that watch or bound what passes
/// (a byte counter, a limit, a hash taken on the way out): they override `read`, and everything else
/// (status, error, the offset property) is the wrapped stream's.
///
/// Foundation's `InputStream` has no working default for any member a transport calls, so each wrapper
/// would otherwise repeat this whole set. There is no run-loop scheduling and no delegate: the stream is
/// read synchronously by one thread at a time and handed over by whoever opened it, never shared.
open class ForwardingInputStream: InputStream {
    /// The stream whose bytes are handed out.
    public let base: InputStream

    public init(base: InputStream) {
        self.base = base
        super.init(data: Data())
    }

    open override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength len: Int) -> Int {
        base.read(buffer, maxLength: len)
    }

    open override func open() { base.open() }
    open override func close() { base.close() }
    open override var streamStatus: Stream.Status { base.streamStatus }
    open override var streamError: (any Error)? { base.streamError }
    open override var hasBytesAvailable: Bool { base.hasBytesAvailable }

    /// Always false: a wrapper sees every byte through `read`, never through the base stream's buffer.
    public override func getBuffer(_ buffer: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>,
                                   length len: UnsafeMutablePointer<Int>) -> Bool { false }

    public override var delegate: (any StreamDelegate)? {
        get { nil }
        set {}
    }

    // Properties are read through (the offset the base stream reached) but never set: moving the base
    // stream under a wrapper would put its own count out of step.
    #if os(Linux)
    public override func property(forKey key: Stream.PropertyKey) -> AnyObject? { base.property(forKey: key) }
    public override func setProperty(_ property: AnyObject?, forKey key: Stream.PropertyKey) -> Bool { false }
    #else
    public override func property(forKey key: Stream.PropertyKey) -> Any? { base.property(forKey: key) }
    public override func setProperty(_ property: Any?, forKey key: Stream.PropertyKey) -> Bool { false }
    #endif

    public override func schedule(in aRunLoop: RunLoop, forMode mode: RunLoop.Mode) {}
    public override func remove(from aRunLoop: RunLoop, forMode mode: RunLoop.Mode) {}
}
