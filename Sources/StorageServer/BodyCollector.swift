import Foundation
import HTTPServer

/// Collects a small request body (WebDAV XML) up to a limit, then answers from it.
final class BodyCollector: HTTPBodyReceiver {
    static let limit = 1 << 20
    private var bytes: [UInt8] = []
    private let answer: ([UInt8]) -> HTTPResponse

    init(answer: @escaping ([UInt8]) -> HTTPResponse) { self.answer = answer }

    func receive(_ chunk: UnsafeRawBufferPointer) -> HTTPResponse? {
        guard bytes.count + chunk.count <= Self.limit else { return .text(413, "XML body larger than \(Self.limit) bytes") }
        bytes.append(contentsOf: chunk)
        return nil
    }

    func finish() -> HTTPResponse { answer(bytes) }

    func abort() { bytes = [] }
}
