import Foundation

/// An `InputStream` over any ``BlobSource``, for use as `URLRequest.httpBodyStream` or wherever an
/// `InputStream` is read.
///
/// **Modes.** In ``Mode/synchronous`` mode (the default, and what URLSession needs) `open()` returns once the
/// source is open or has failed, and `read` blocks until its bytes are there. Opening synchronously on the
/// very queue the source calls its open completion on would wait forever; when the source names that queue
/// (``BlobSource/openCompletionQueue``) the stream fails at once with
/// ``BlobStreamError/synchronousOpenWouldDeadlock(name:)`` instead. Synchronous mode blocks its caller, so
/// keep it off the Swift concurrency pool (use ``BlobChunks`` there): an `HTTPSource` completes its work
/// on that pool, and blocking every pool thread would leave none to do it. In ``Mode/asynchronous(events:)`` mode
/// `open()` returns at once, blocks are read ahead on a private queue, and `openCompleted`,
/// `hasBytesAvailable`, `endEncountered` and `errorOccurred` go to the delegate on the given queue or on the
/// run loops the stream is scheduled in. A delegate that reads once per `hasBytesAvailable` never blocks.
///
/// **Offsets.** Set `Stream.PropertyKey.fileCurrentOffsetKey` (an `NSNumber`) before `open()` to start
/// there, or after it to move; reading it gives the offset of the next byte.
///
/// **Blocks.** Each source read fills a whole block (``defaultBlockSize`` unless given); smaller `read`
/// calls are served from it.
///
/// **Invalidation.** A source that reports itself invalid is re-opened and the read continues at the same
/// offset when its identity is unchanged; otherwise the stream fails with
/// ``BlobStreamError/contentChanged(name:)``. Bytes of two versions never meet in one stream.
///
/// Errors surface as `streamStatus == .error` with a ``BlobStreamError`` in `streamError`, and `read`
/// returning -1; the stream never ends early without one.
///
/// On Apple platforms the class compiles and works when read directly or through the delegate; CFNetwork's
/// own scheduling of body streams relies on private CFStream hooks this class does not provide.
public final class BlobInputStream: InputStream {
    /// How `open()` and `read` behave; see the type's documentation.
    public enum Mode: Sendable {
        case synchronous
        /// Events go to `events` when given, otherwise to the run loops the stream is scheduled in.
        case asynchronous(events: DispatchQueue?)
    }

    /// 128 KiB.
    public static let defaultBlockSize = 128 * 1024

    /// The source read.
    public let source: any BlobSource
    public let mode: Mode
    /// Bytes per source read.
    public let blockSize: Int
    private let engine: BlobStreamEngine

    /// - Parameters:
    ///   - source: what to read; the stream opens and closes it.
    ///   - mode: synchronous (default) or asynchronous with events on a queue or run loop.
    ///   - blockSize: bytes per source read.
    public init(source: any BlobSource, mode: Mode = .synchronous, blockSize: Int = BlobInputStream.defaultBlockSize) {
        self.source = source
        self.mode = mode
        self.blockSize = max(1, blockSize)
        engine = BlobStreamEngine(source: source, mode: mode, blockSize: self.blockSize)
        super.init(data: Data())
        engine.setOwner(self)
    }

    /// The content's length, identity and type once open.
    public var info: BlobInfo? { engine.reader.info }

    public override func open() { engine.open() }

    public override func close() { engine.close() }

    public override var streamStatus: Stream.Status { engine.status }

    public override var streamError: (any Error)? { engine.error }

    /// True while a read may return bytes; also while an asynchronous open is pending (a read waits for it)
    /// and after an error (a read returns -1): URLSession ends the body at the first `false`, and must see
    /// the failure rather than a body that simply stops.
    public override var hasBytesAvailable: Bool { engine.hasBytesAvailable }

    public override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength len: Int) -> Int {
        engine.read(buffer, maxLength: len)
    }

    /// Hands out the rest of the current block without copying and counts it as read. The pointer stays
    /// valid until the next call on the stream. Returns false when no bytes are buffered; use `read` then.
    public override func getBuffer(_ buffer: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>,
                                   length len: UnsafeMutablePointer<Int>) -> Bool {
        guard let taken = engine.takeBuffered() else { return false }
        buffer.pointee = engine.pointer(index: taken.index, from: taken.from)
        len.pointee = taken.count
        return true
    }

    public override var delegate: (any StreamDelegate)? {
        get { engine.delegate }
        set { engine.setDelegate(newValue) }
    }

    /// Events go to `runLoop` in `mode` (unless a queue was given at creation).
    public override func schedule(in runLoop: RunLoop, forMode mode: RunLoop.Mode) {
        engine.schedule(in: runLoop, forMode: mode)
    }

    public override func remove(from runLoop: RunLoop, forMode mode: RunLoop.Mode) {
        engine.remove(from: runLoop, forMode: mode)
    }

    // Only `fileCurrentOffsetKey` is supported (read and set); see the type's documentation.
    #if os(Linux)
    public override func property(forKey key: Stream.PropertyKey) -> AnyObject? { engine.property(forKey: key) }

    public override func setProperty(_ property: AnyObject?, forKey key: Stream.PropertyKey) -> Bool {
        engine.setProperty(property, forKey: key)
    }
    #else
    public override func property(forKey key: Stream.PropertyKey) -> Any? { engine.property(forKey: key) }

    public override func setProperty(_ property: Any?, forKey key: Stream.PropertyKey) -> Bool {
        engine.setProperty(property, forKey: key)
    }
    #endif
}
