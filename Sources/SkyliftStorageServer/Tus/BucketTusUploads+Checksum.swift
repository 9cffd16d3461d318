import Foundation
import SkyliftCore
import SkyliftHashing
import SkyliftHTTPServer

/// The tus `checksum` extension over a bucket: a PATCH with `Upload-Checksum` is received whole and checked before
/// any of it is appended (an append stores parts as they fill, and a stored part cannot be taken back), so such a
/// PATCH carries at most one part (``S3Store/partSize``); larger ones get 413 saying so. A mismatch is 460 with
/// nothing stored. Larger uploads are checked block by block instead (`block-checksum`), which the server offers too.
extension BucketTusUploads {
    func receiveChecked(_ request: HTTPRequest, id: String, offset: Int64, length: Int64?,
                        wrap: @escaping (HTTPResponse) -> HTTPResponse) -> HTTPHeadDecision {
        let checksum: TusPatchReceiver.Checksum
        switch TusUploads.parseChecksum(request.headers[TusProtocol.Header.checksum]) {
        case let .value(parsed?): checksum = parsed
        case .value(nil): return .respond(Self.tus(400, "malformed Upload-Checksum"))
        case let .refused(response): return .respond(response)
        }
        let most = Int64(backend.store.partSize)
        guard let bodyLength = request.contentLength, bodyLength <= most else {
            return .respond(Self.tus(413, "a PATCH with Upload-Checksum carries at most \(most) bytes here (with its Content-Length): "
                                     + "it is checked whole before it is stored; send smaller PATCHes or use block-checksum"))
        }
        guard bodyLength <= (length ?? maxSize) - offset else {
            return .respond(Self.tus(413, "body runs past the upload's length \(length ?? maxSize)"))
        }
        let store = backend.store
        let intake = BucketIntake<Int64?>(executor: backend.executor, maxSize: bodyLength, job: { [self] body in
            defer { unclaim(id) }
            let bytes = try await Self.collect(body, limit: bodyLength)
            guard Digest.hash(checksum.algorithm, bytes) == checksum.expected else { return nil }
            let reached = try await store.append(id, at: offset, body: AsyncStream<[UInt8]> { $0.yield(bytes); $0.finish() })
            if let length, reached == length { try await store.finishResumable(id) }
            return reached
        }, respond: { [self] outcome in
            switch outcome {
            case .success(nil):
                return Self.tus(TusProtocol.checksumMismatchStatus, "checksum mismatch: nothing of this PATCH was stored",
                                headers: [TusProtocol.Header.offset: String(offset)])
            case let .success(reached?):
                var h = HTTPHeaders()
                h.add(TusProtocol.Header.offset, String(reached))
                if reached != length { addExpires(to: &h, from: Date()) }
                return wrap(Self.tus(204, headers: h))
            case let .failure(error):
                return Self.refusal(error, operation: "store")
            }
        })
        return .receive(intake)
    }
}
