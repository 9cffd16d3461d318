import Foundation
import SkyliftCore
import SkyliftHTTPServer
import SkyliftHashing
import SkyliftSystem

/// Appends one PATCH (or creation-with-upload) body to an upload's data file.
///
/// Bytes are fsynced before the 204 goes out. A chunk with `Upload-Checksum` is verified once complete and
/// cut off again on mismatch; a chunk without one that is interrupted is kept, as tus intends.
final class TusPatchReceiver: HTTPBodyReceiver {
    struct Checksum {
        let algorithm: DigestAlgorithm
        let expected: [UInt8]
    }

    private let upload: TusUpload
    private let startOffset: Int64
    private let length: Int64?
    private let sink: FileSink
    private var digest: Digest?
    private let expected: [UInt8]?
    private let done: (HTTPResponse, _ completed: Bool) -> HTTPResponse
    private let release: () -> Void
    private var failed = false

    /// `done` turns the success answer into the final one (and finishes the upload when `completed`);
    /// `release` runs exactly once when this receiver is through with the upload.
    init(upload: TusUpload, offset: Int64, length: Int64?, checksum: Checksum?,
         done: @escaping (HTTPResponse, Bool) -> HTTPResponse, release: @escaping () -> Void) throws {
        self.upload = upload
        startOffset = offset
        self.length = length
        self.done = done
        self.release = release
        expected = checksum?.expected
        if let checksum {
            digest = Digest(checksum.algorithm)
            try Self.writePending(offset, to: upload.pendingPath)
        }
        let fd = try FileSystem.open(upload.dataPath, .writeOnly, .append)
        sink = FileSink(file: fd, path: upload.dataPath)
    }

    func receive(_ chunk: UnsafeRawBufferPointer) -> HTTPResponse? {
        guard !failed else { return nil }
        if let length, Int64(chunk.count) > length - startOffset - sink.written {
            return fail(.text(413, "PATCH runs past Upload-Length \(length)"))
        }
        do { try sink.append(chunk) } catch {
            if expected == nil, let e = error as? FileSystemError, e.isNoSpace { return keepWritten() }
            return fail(failure(error))
        }
        digest?.update(chunk)
        return nil
    }

    /// The disk filled mid-body: what reached the data file is a prefix of the body and stays (tus keeps an
    /// interrupted chunk), so the client, told the offset, never sends those bytes again.
    private func keepWritten() -> HTTPResponse {
        failed = true
        sink.discardBuffer()
        try? sink.file.sync(path: upload.dataPath)
        var h = HTTPHeaders()
        if let size = FileSystem.stat(fd: sink.file)?.size { h.add(TusProtocol.Header.offset, String(size)) }
        return TusUploads.tusResponse(507, "insufficient storage: the upload keeps what was written", headers: h)
    }

    func finish() -> HTTPResponse {
        defer { release() }
        if failed { return TusUploads.tusResponse(500, "upload failed") }
        if let expected, let d = digest.take() {
            guard d.finalize() == expected else {
                rollBack()
                return TusUploads.tusResponse(460, "checksum mismatch: chunk discarded")
            }
        }
        do { try sink.sync() } catch {
            if expected == nil, let e = error as? FileSystemError, e.isNoSpace { return keepWritten() }
            return fail(failure(error))
        }
        FileSystem.unlink(upload.pendingPath)
        let offset = startOffset + sink.written
        var h = HTTPHeaders()
        h.add(TusProtocol.Header.offset, String(offset))
        return done(HTTPResponse(status: 204, headers: h), length == offset)
    }

    func abort() {
        defer { release() }
        guard !failed else { return }
        if expected != nil {
            // An unverified chunk must not count.
            rollBack()
        } else {
            try? sink.sync()
        }
    }

    /// Cuts the data file back to where this request started.
    private func fail(_ response: HTTPResponse) -> HTTPResponse {
        rollBack()
        return response
    }

    private func rollBack() {
        failed = true
        sink.discardBuffer()
        if (try? sink.file.setLength(startOffset, path: upload.dataPath)) != nil {
            try? sink.file.sync(path: upload.dataPath)
            FileSystem.unlink(upload.pendingPath)
        }
    }

    private func failure(_ error: any Error) -> HTTPResponse {
        if let e = error as? FileSystemError, e.isNoSpace { return TusUploads.tusResponse(507, "insufficient storage") }
        return TusUploads.tusResponse(500, "cannot store upload data")
    }

    private static func writePending(_ offset: Int64, to path: String) throws {
        let fd = try FileSystem.open(path, .writeOnly, [.create, .truncate], mode: 0o600)
        defer { fd.close() }
        do { try Array(String(offset).utf8).withUnsafeBytes { try fd.writeAll($0, path: path) } } catch let e as FileError {
            throw FileSystemError(e)
        }
        try FileSystem.sync(fd, path: path)
    }
}
