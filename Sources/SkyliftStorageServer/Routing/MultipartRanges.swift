import SkyliftCore
import SkyliftHTTPServer

/// A `multipart/byteranges` body laid out by ``RangedResponse``: part headers from memory, part bodies read
/// from the store piece by piece through `read` (bytes of the file at an offset; nil or 0 when they cannot be had).
final class MultipartRanges: HTTPBodyProducer {
    let length: Int64
    private let pieces: [(start: Int64, piece: RangedResponse.Part)]
    private let read: (UnsafeMutableRawBufferPointer, Int64) -> Int?
    private let release: () -> Void

    init(parts: [RangedResponse.Part], length: Int64, close: @escaping () -> Void,
         read: @escaping (UnsafeMutableRawBufferPointer, Int64) -> Int?) {
        self.length = length
        self.read = read
        release = close
        var at: Int64 = 0
        pieces = parts.map { part in
            defer { at += part.length }
            return (at, part)
        }
    }

    func produce(into buffer: UnsafeMutableRawBufferPointer, at position: Int64) -> HTTPProduceResult {
        guard position < length else { return .end }
        guard let index = pieces.lastIndex(where: { $0.start <= position }) else { return .failed }
        let (start, piece) = pieces[index]
        let within = position - start
        let want = Int(min(Int64(buffer.count), piece.length - within))
        switch piece {
        case let .text(bytes):
            bytes.withUnsafeBytes { src in
                buffer.baseAddress!.copyMemory(from: src.baseAddress! + Int(within), byteCount: want)
            }
            return .bytes(want)
        case let .range(r):
            let view = UnsafeMutableRawBufferPointer(rebasing: buffer[0 ..< want])
            // Zero or nothing means the file shrank or vanished under us: cut the response short.
            guard let n = read(view, r.offset + within), n > 0 else { return .failed }
            return .bytes(n)
        }
    }

    func close() { release() }
}
