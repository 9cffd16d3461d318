import Foundation
import SkyliftHashing
import SkyliftRemotes
import SkyliftHTTPServer
import SkyliftCore
import Synchronization

/// A small tus 1.0 server for fault injection: it answers 460 to a chosen PATCH, 409 to another, or keeps
/// part of a PATCH body and then cuts the connection. Held in memory: test files are small.
final class FaultyTusServer: HTTPHandler {
    struct Upload { var length: Int64; var bytes: [UInt8]; var metadata: String }
    struct Faults {
        /// PATCH numbers (1-based) answered 460 without storing anything.
        var checksumFailures: Set<Int> = []
        /// PATCH numbers answered 409 without storing anything.
        var conflicts: Set<Int> = []
        /// PATCH numbers whose connection is cut after storing this many bytes of the body.
        var cuts: [Int: Int] = [:]
    }
    struct State {
        var uploads: [String: Upload] = [:]
        var faults = Faults()
        var patches = 0
        var bytesReceived: Int64 = 0
        var checksumsSeen: [String] = []
        var deleted: [String] = []
    }
    let state: Mutex<State>
    let checksumAlgorithms: String?
    /// `Upload-Metadata` keys a creation must carry (with a non-empty value), else 400 as some servers do.
    let requiredMetadata: [String]

    init(faults: Faults = Faults(), checksumAlgorithms: String? = "sha1,sha256", requiredMetadata: [String] = []) {
        var s = State()
        s.faults = faults
        state = Mutex(s)
        self.checksumAlgorithms = checksumAlgorithms
        self.requiredMetadata = requiredMetadata
    }

    var completed: [Upload] { state.withLock { Array($0.uploads.values.filter { Int64($0.bytes.count) == $0.length }) } }

    func head(_ request: HTTPRequest) -> HTTPHeadDecision {
        var base: HTTPHeaders = ["Tus-Resumable": "1.0.0"]
        switch request.method {
        case "OPTIONS":
            base.add("Tus-Version", "1.0.0")
            base.add("Tus-Extension", checksumAlgorithms == nil ? "creation,termination" : "creation,termination,checksum")
            if let algs = checksumAlgorithms { base.add("Tus-Checksum-Algorithm", algs) }
            return .respond(HTTPResponse(status: 204, headers: base))
        case "POST":
            guard let length = request.headers["Upload-Length"].flatMap({ Int64($0) }) else { return .respond(.text(400, "no length")) }
            let metadata = TusProtocol.parseMetadata(request.headers["Upload-Metadata"] ?? "") ?? [:]
            if let missing = requiredMetadata.first(where: { (metadata[$0] ?? "").isEmpty }) {
                return .respond(.text(400, "Upload-Metadata needs \(missing)"))
            }
            let id = UUID().uuidString
            state.withLock { $0.uploads[id] = Upload(length: length, bytes: [], metadata: request.headers["Upload-Metadata"] ?? "") }
            base.add("Location", "/files/\(id)")
            return .respond(HTTPResponse(status: 201, headers: base))
        case "HEAD":
            guard let up = state.withLock({ $0.uploads[id(request)] }) else { return .respond(HTTPResponse(status: 404, headers: base)) }
            base.add("Upload-Offset", String(up.bytes.count))
            base.add("Upload-Length", String(up.length))
            base.add("Cache-Control", "no-store")
            return .respond(HTTPResponse(status: 200, headers: base))
        case "DELETE":
            state.withLock { $0.uploads[id(request)] = nil; $0.deleted.append(id(request)) }
            return .respond(HTTPResponse(status: 204, headers: base))
        case "PATCH":
            return patch(request, base: base)
        default:
            return .respond(.text(405, "no"))
        }
    }

    private func id(_ request: HTTPRequest) -> String { String(request.path.split(separator: "/").last ?? "") }

    private func patch(_ request: HTTPRequest, base: HTTPHeaders) -> HTTPHeadDecision {
        let key = id(request)
        let (number, upload, faults) = state.withLock { s -> (Int, Upload?, Faults) in
            s.patches += 1
            if let c = request.headers["Upload-Checksum"] { s.checksumsSeen.append(String(c.split(separator: " ").first ?? "")) }
            return (s.patches, s.uploads[key], s.faults)
        }
        guard let upload else { return .respond(HTTPResponse(status: 404, headers: base)) }
        guard request.headers["Upload-Offset"].flatMap({ Int64($0) }) == Int64(upload.bytes.count) else {
            return .respond(HTTPResponse(status: 409, headers: base))
        }
        if faults.conflicts.contains(number) { return .respond(HTTPResponse(status: 409, headers: base)) }
        return .receive(PatchReceiver(server: self, key: key, base: base, checksum: request.headers["Upload-Checksum"],
                                      failChecksum: faults.checksumFailures.contains(number), cutAfter: faults.cuts[number]))
    }

    final class PatchReceiver: HTTPBodyReceiver {
        let server: FaultyTusServer
        let key: String
        let base: HTTPHeaders
        let checksum: String?
        let failChecksum: Bool
        let cutAfter: Int?
        var body: [UInt8] = []

        init(server: FaultyTusServer, key: String, base: HTTPHeaders, checksum: String?, failChecksum: Bool, cutAfter: Int?) {
            self.server = server
            self.key = key
            self.base = base
            self.checksum = checksum
            self.failChecksum = failChecksum
            self.cutAfter = cutAfter
        }

        func receive(_ chunk: UnsafeRawBufferPointer) -> HTTPResponse? {
            body.append(contentsOf: chunk)
            server.state.withLock { $0.bytesReceived += Int64(chunk.count) }
            if let cutAfter, body.count >= cutAfter {
                store(Array(body.prefix(cutAfter)))
                return HTTPResponse(status: 200, headers: base, body: .stream(length: 64, producer: Cut()))
            }
            return nil
        }

        func finish() -> HTTPResponse {
            if failChecksum || !checksumMatches() { return HTTPResponse(status: 460, headers: base) }
            let offset = store(body)
            var h = base
            h.add("Upload-Offset", String(offset))
            return HTTPResponse(status: 204, headers: h)
        }

        func abort() {}

        private func checksumMatches() -> Bool {
            guard let checksum else { return true }
            let parts = checksum.split(separator: " ")
            guard parts.count == 2, let alg = DigestAlgorithm(rawValue: String(parts[0])) else { return false }
            return Digest.hash(alg, body).base64String == parts[1]
        }

        @discardableResult
        private func store(_ bytes: [UInt8]) -> Int {
            server.state.withLock { s in
                s.uploads[key]?.bytes.append(contentsOf: bytes)
                return s.uploads[key]?.bytes.count ?? 0
            }
        }
    }

    /// A body that fails at once: the server closes the connection, the client sees a cut transfer.
    final class Cut: HTTPBodyProducer {
        func produce(into buffer: UnsafeMutableRawBufferPointer, at position: Int64) -> HTTPProduceResult { .failed }
        func close() {}
    }
}
