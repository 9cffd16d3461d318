import Foundation
import SkyliftHTTPServer
import SkyliftCore
import Synchronization

/// Just enough of an S3 service for one multipart upload (CreateMultipartUpload, UploadPart, ListParts,
/// CompleteMultipartUpload, HeadObject), whose ListParts answers also carry parts with impossible numbers and
/// sizes (`Size` -1, part 0, a size past Int64): what a broken or hostile service may send. Signatures are
/// not checked.
final class LyingS3: HTTPHandler, Sendable {
    private struct State {
        var parts: [Int: Int] = [:]
        var object: Int?
    }

    private let state = Mutex(State())
    private let server = Mutex<HTTPServer?>(nil)

    init() throws {
        let s = HTTPServer(configuration: .init(), handler: self)
        try s.start()
        server.withLock { $0 = s }
    }

    var endpoint: String { server.withLock { $0!.baseURL } }
    var storedLength: Int? { state.withLock { $0.object } }

    func stop() { server.withLock { $0?.stop(); $0 = nil } }

    private static let bogusParts = """
    <Part><PartNumber>1</PartNumber><Size>-1</Size><ETag>"bogus"</ETag></Part>\
    <Part><PartNumber>0</PartNumber><Size>5</Size><ETag>"bogus"</ETag></Part>\
    <Part><PartNumber>2</PartNumber><Size>99999999999999999999</Size><ETag>"bogus"</ETag></Part>
    """

    func head(_ request: HTTPRequest) -> HTTPHeadDecision {
        let query = request.query ?? ""
        switch request.method {
        case "POST" where query.contains("uploads"):
            return xml("<InitiateMultipartUploadResult><UploadId>u1</UploadId></InitiateMultipartUploadResult>")
        case "PUT" where query.contains("partNumber="):
            let number = query.split(separator: "&").first { $0.hasPrefix("partNumber=") }.flatMap { Int($0.dropFirst(11)) } ?? 0
            return .receive(PartSink(owner: self, number: number))
        case "GET" where query.contains("uploadId="):
            let listed = state.withLock { s in
                s.parts.sorted { $0.key < $1.key }.map { "<Part><PartNumber>\($0.key)</PartNumber><Size>\($0.value)</Size><ETag>\"p\($0.key)\"</ETag></Part>" }
            }
            return xml("<ListPartsResult>\(Self.bogusParts)\(listed.joined())<IsTruncated>false</IsTruncated></ListPartsResult>")
        case "POST" where query.contains("uploadId="):
            state.withLock { s in s.object = s.parts.values.reduce(0, +) }
            return xml("<CompleteMultipartUploadResult><ETag>\"done-2\"</ETag></CompleteMultipartUploadResult>")
        case "HEAD":
            guard let length = state.withLock({ $0.object }) else { return .respond(HTTPResponse(status: 404)) }
            return .respond(HTTPResponse(status: 200, headers: ["Content-Length": String(length), "ETag": "\"done-2\"",
                                                               "Last-Modified": "Sun, 06 Nov 99999999999999999 08:49:37 GMT"],
                                         body: .stream(length: Int64(length), producer: Empty())))
        default:
            return .respond(.text(400, "not in this fake: \(request.method) \(request.path)?\(query)"))
        }
    }

    private func xml(_ body: String) -> HTTPHeadDecision {
        .respond(HTTPResponse(status: 200, headers: ["Content-Type": "application/xml"], body: .bytes(Array(body.utf8))))
    }

    fileprivate func stored(part number: Int, size: Int) { state.withLock { $0.parts[number] = size } }

    private final class PartSink: HTTPBodyReceiver {
        let owner: LyingS3
        let number: Int
        var size = 0
        init(owner: LyingS3, number: Int) {
            self.owner = owner
            self.number = number
        }

        func receive(_ chunk: UnsafeRawBufferPointer) -> HTTPResponse? {
            size += chunk.count
            return nil
        }

        func finish() -> HTTPResponse {
            owner.stored(part: number, size: size)
            return HTTPResponse(status: 200, headers: ["ETag": "\"p\(number)\""])
        }

        func abort() {}
    }

    private final class Empty: HTTPBodyProducer {
        func produce(into buffer: UnsafeMutableRawBufferPointer, at position: Int64) -> HTTPProduceResult { .end }
        func close() {}
    }
}
