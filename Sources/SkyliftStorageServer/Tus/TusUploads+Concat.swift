import Foundation
import SkyliftHTTPServer
import SkyliftCore
import SkyliftSystem

/// `concatenation` (tus 1.0): a client sends pieces of a file as partial uploads (`Upload-Concat: partial`),
/// several at once, then creates the final upload (`Upload-Concat: final;<url> <url> …`), which joins them in
/// order into the file the creation's metadata names.
///
/// The join copies the partial uploads into `<id>.joining` in the uploads folder, hashing as it copies (the file's
/// digest record costs no second read), makes it durable and renames it into place, as a finished upload is; only
/// then are the partial uploads removed. A crash before the rename leaves them intact (the client asks again) and
/// the `.joining` file to the next sweep. `concatenation-unfinished` is not offered: every partial upload named
/// must be finished, and is consumed by the first final upload that joins it.
extension TusUploads {
    /// Answers a final creation: 201 with the final upload's `Location` once its file is in place; 400 for a list
    /// that is not all distinct, finished partial uploads of this server; nothing is created unless it is.
    func createFinal(_ request: HTTPRequest, folder: StoragePath, urls: [String]) -> HTTPResponse {
        if let refusal = Self.finalRefusal(request) { return refusal }
        let metadata = request.headers[TusProtocol.Header.metadata] ?? ""
        let target: StoragePath
        switch finalPath(folder: folder, metadata: metadata) {
        case let .value(p): target = p
        case let .refused(response): return response
        }
        let ids: [String]
        switch Self.partialIDs(urls) {
        case let .value(i): ids = i
        case let .refused(response): return response
        }
        // Every partial upload is held for the whole join: no PATCH, DELETE, sweep or other final upload meanwhile.
        var held: [String] = []
        defer { for id in held { unclaim(id) } }
        for id in ids {
            guard claim(id) else { return Self.tusResponse(423, "another request is using partial upload /uploads/\(id)") }
            held.append(id)
        }
        let lengths: [Int64]
        switch partialLengths(ids) {
        case let .value(l): lengths = l
        case let .refused(response): return response
        }
        let final = upload(TusUpload.newID())
        guard claim(final.id) else { return Self.tusResponse(500, "cannot create upload") }
        defer { unclaim(final.id) }
        var info = TusUpload.Info(length: lengths.reduce(0, +), metadata: metadata, target: target.segments)
        info.final = ids
        return join(zip(ids, lengths).map { (id: $0, length: $1) }, into: final, info: info)
    }

    /// The upload ids of a final upload's URLs (ids `isValid` takes), or 400 for one that is not an upload URL of
    /// this server or is named twice.
    static func partialIDs(_ urls: [String], isValid: (Substring) -> Bool = TusUpload.isValidID) -> Checked<[String]> {
        var ids: [String] = []
        var seen = Set<String>()
        for url in urls {
            guard let id = uploadID(inURL: url, isValid: isValid) else {
                return .refused(tusResponse(400, "Upload-Concat: \(quoted(url)) is not an upload URL of this server"))
            }
            guard seen.insert(id).inserted else { return .refused(tusResponse(400, "Upload-Concat: \(quoted(url)) is named twice")) }
            ids.append(id)
        }
        return .value(ids)
    }

    /// 400 for a final creation with a length or a body: its bytes are its partial uploads'.
    static func finalRefusal(_ request: HTTPRequest) -> HTTPResponse? {
        if request.headers[TusProtocol.Header.length] != nil || request.headers[TusProtocol.Header.deferLength] != nil {
            return Self.tusResponse(400, "a final upload's length is its partial uploads': no Upload-Length or Upload-Defer-Length")
        }
        if (request.contentLength ?? 0) > 0 || request.headers["Transfer-Encoding"] != nil {
            return Self.tusResponse(400, "a final upload carries no body")
        }
        return nil
    }

    /// Each partial upload's length; 400 when one is not a finished partial upload or their sum overflows, 413
    /// when it passes `Tus-Max-Size`. Called holding every one of them.
    private func partialLengths(_ ids: [String]) -> Checked<[Int64]> {
        var total: Int64 = 0
        var lengths: [Int64] = []
        for id in ids {
            let partial = upload(id)
            guard let info = partial.loadInfo(), info.partial == true else {
                return .refused(Self.tusResponse(400, "Upload-Concat: /uploads/\(id) is not a partial upload of this server"))
            }
            guard partial.isFinished(info), let length = info.length else {
                let offset = partial.offset(info).map(String.init) ?? "?"
                let of = info.length.map(String.init) ?? "deferred"
                return .refused(Self.tusResponse(400, "Upload-Concat: partial upload /uploads/\(id) is not finished (\(offset) of \(of) bytes confirmed)"))
            }
            let (sum, overflow) = total.addingReportingOverflow(length)
            guard !overflow else { return .refused(Self.tusResponse(400, "Upload-Concat: the partial uploads' lengths overflow")) }
            guard sum <= maxSize else { return .refused(Self.tusResponse(413, "the partial uploads exceed Tus-Max-Size \(maxSize)")) }
            total = sum
            lengths.append(length)
        }
        return .value(lengths)
    }

    /// Copies the partial uploads into the final upload's file (hashing as it goes), renames it into place, then
    /// removes the partial uploads and records the final upload (for HEAD).
    private func join(_ partials: [(id: String, length: Int64)], into final: TusUpload, info: TusUpload.Info) -> HTTPResponse {
        let temp = final.joiningPath
        do {
            let fd = try FileDescriptor.open(temp, .writeOnly, options: [.create, .exclusive, .noFollow])
            defer { fd.close() }
            let recorder = store.digests.recorder()
            for (id, length) in partials {
                let partial = upload(id)
                let source = try FileDescriptor.open(partial.dataPath, .readOnly, options: .noFollow)
                defer { source.close() }
                let copied = try DigestStore.read(source, path: partial.dataPath) { bytes in
                    recorder.update(bytes)
                    try fd.writeAll(bytes, path: temp)
                }
                guard copied == length else { throw FileSystemError(operation: "join", path: partial.dataPath, errno: .ioError) }
            }
            store.digests.save(recorder, fd: fd, path: temp)
            try fd.sync(path: temp)
        } catch {
            FileSystem.unlink(temp)
            if let e = error as? FileError, e.errno?.isNoSpace == true { return Self.tusResponse(507, "insufficient storage") }
            return Self.tusResponse(500, "cannot join the partial uploads")
        }
        if let failure = place(temp, target: info.target, before: {}) {
            FileSystem.unlink(temp)
            return failure
        }
        for (id, _) in partials { upload(id).remove() }
        // The file is in place whatever happens now; without this record a HEAD on the final upload answers 404.
        if let fd = try? FileDescriptor.open(final.dataPath, .writeOnly, options: [.create, .exclusive, .noFollow]) { fd.close() }
        try? final.save(info)
        var h = HTTPHeaders()
        h.add("Location", "/uploads/\(final.id)")
        h.add(TusProtocol.Header.offset, String(info.length ?? 0))
        return Self.tusResponse(201, headers: h)
    }

    /// `Upload-Concat` of a final upload's HEAD, or `partial` for a partial upload's.
    static func concat(_ info: TusUpload.Info) -> TusProtocol.Concat? {
        if let ids = info.final { return .final(ids.map { "/uploads/\($0)" }) }
        return info.partial == true ? .partial : nil
    }

    /// The upload id in `/uploads/<id>` or `http(s)://<authority>/uploads/<id>` (no query, no fragment), an id
    /// `isValid` takes; nil for anything else. Read byte by byte: the value is the client's.
    static func uploadID(inURL url: String, isValid: (Substring) -> Bool = TusUpload.isValidID) -> String? {
        var bytes = Substring(url).utf8[...]
        for scheme in ["http://", "https://"] {
            let prefix = Array(scheme.utf8)
            guard bytes.count > prefix.count,
                  zip(bytes.prefix(prefix.count), prefix).allSatisfy({ $0 == $1 || (65...90).contains($0) && $0 | 0x20 == $1 }) else { continue }
            bytes = bytes.dropFirst(prefix.count)
            guard let slash = bytes.firstIndex(of: UInt8(ascii: "/")) else { return nil }
            bytes = bytes[slash...]
        }
        let path = Array("/uploads/".utf8)
        guard bytes.starts(with: path) else { return nil }
        let id = String(decoding: bytes.dropFirst(path.count), as: UTF8.self)
        return isValid(Substring(id)) ? id : nil
    }

    /// A client's URL for a message: at most 200 characters.
    private static func quoted(_ url: String) -> String {
        url.utf8.count <= 200 ? "\"\(url)\"" : "\"\(String(decoding: url.utf8.prefix(200), as: UTF8.self))…\""
    }
}
