import Foundation

/// A request body as a transport thread reads it: from memory or from a stream opened on that thread.
struct CurlRequestBody {
    struct Failure: Error { let reason: String }

    private let source: HTTPClientRequest.Body
    private var stream: InputStream?
    private var offset: Int64 = 0

    init(_ source: HTTPClientRequest.Body) { self.source = source }

    mutating func open() throws {
        guard case let .stream(_, open) = source else { return }
        let stream: InputStream
        do { stream = try open() } catch { throw Failure(reason: "cannot open body stream: \(error)") }
        if stream.streamStatus == .notOpen { stream.open() }
        if stream.streamStatus == .error {
            throw Failure(reason: "cannot open body stream: \(stream.streamError.map { "\($0)" } ?? "unknown error")")
        }
        self.stream = stream
        offset = 0
    }

    mutating func close() {
        stream?.close()
        stream = nil
    }

    /// Fills up to `buffer.count` bytes; 0 at the end of the body. Throws when the stream fails or ends
    /// before its declared length.
    mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws(Failure) -> Int {
        switch source {
        case .none:
            return 0
        case let .bytes(bytes):
            let n = min(buffer.count, bytes.count - Int(offset))
            guard n > 0 else { return 0 }
            bytes.withUnsafeBytes { src in
                buffer.baseAddress!.copyMemory(from: src.baseAddress! + Int(offset), byteCount: n)
            }
            offset += Int64(n)
            return n
        case let .stream(length, _):
            guard let stream, let base = buffer.baseAddress else { return 0 }
            var want = buffer.count
            if let length {
                // Never send past the declared length: the server would read the excess as a new request.
                want = Int(min(Int64(want), length - offset))
                if want == 0 { return 0 }
            }
            let n = stream.read(base.assumingMemoryBound(to: UInt8.self), maxLength: want)
            if n < 0 {
                throw Failure(reason: "body stream read failed: \(stream.streamError.map { "\($0)" } ?? "unknown error")")
            }
            if n == 0, let length, offset < length {
                throw Failure(reason: "body stream ended after \(offset) of \(length) bytes")
            }
            offset += Int64(n)
            return n
        }
    }

    /// Starts the body over at `position`. Streams restart only from the beginning, by opening a new one.
    mutating func rewind(to position: Int64) -> Bool {
        switch source {
        case .none:
            return position == 0
        case let .bytes(bytes):
            guard position >= 0, position <= Int64(bytes.count) else { return false }
            offset = position
            return true
        case .stream:
            guard position == 0 else { return false }
            close()
            return (try? open()) != nil
        }
    }
}

extension Error {
    /// A reason string for an `HTTPClientError`.
    var reason: String { (self as? CurlRequestBody.Failure)?.reason ?? "\(self)" }
}
