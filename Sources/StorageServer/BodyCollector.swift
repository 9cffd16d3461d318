import Foundation
import HTTPServer

/// Collects a small request body (WebDAV XML) up to a limit, then answers from it.
final class BodyCollector: HTTPBodyReceiver {
    private let limit: Int
    private var bytes: [UInt8] = []
    private let answer: ([UInt8]) -> HTTPResponse

    init(limit: Int, answer: @escaping ([UInt8]) -> HTTPResponse) {
        self.limit = limit
        self.answer = answer
    }

    func receive(_ chunk: UnsafeRawBufferPointer) -> HTTPResponse? {
        guard bytes.count + chunk.count <= limit else { return Self.tooLarge(limit) }
        bytes.append(contentsOf: chunk)
        return nil
    }

    func finish() -> HTTPResponse { answer(bytes) }

    func abort() { bytes = [] }

    static func tooLarge(_ limit: Int) -> HTTPResponse { .text(413, "XML body larger than \(limit) bytes") }
}
