import Foundation
import HTTPServer

/// Streams a PUT body into a hidden temp file beside the target, fsyncs it, and renames it into place
/// only when the body is complete: readers see the old file or the new one, never a mix or a prefix.
/// Concurrent PUTs of one path each have their own temp file, so the last one to finish wins whole.
final class PutReceiver: HTTPBodyReceiver {
    private let target: StoragePath
    private let sink: FileSink
    private let maxSize: Int64
    private var failed = false

    /// Creates the temp file; throws when it cannot be created.
    init(target: StoragePath, maxSize: Int64) throws {
        self.target = target
        self.maxSize = maxSize
        let temp = FileSystem.tempSibling(of: target.filePath, kind: "put")
        sink = FileSink(fd: try FileSystem.open(temp, O_WRONLY | O_CREAT | O_EXCL, mode: 0o644), path: temp)
    }

    func receive(_ chunk: UnsafeRawBufferPointer) -> HTTPResponse? {
        guard !failed else { return nil }
        if sink.written + Int64(chunk.count) > maxSize {
            return fail(.text(413, "body larger than \(maxSize) bytes"))
        }
        do { try sink.append(chunk) } catch { return fail(Self.response(for: error, path: target)) }
        return nil
    }

    func finish() -> HTTPResponse {
        if failed { return .text(500, "upload failed") }
        let existed = FileSystem.stat(target.filePath) != nil
        do {
            try sink.sync()
            if FileSystem.stat(target.filePath)?.isDirectory == true {
                return fail(.text(405, "a collection exists at \(target.relative)"))
            }
            try FileSystem.rename(sink.path, target.filePath)
        } catch {
            return fail(Self.response(for: error, path: target))
        }
        FileSystem.syncDirectory((target.filePath as NSString).deletingLastPathComponent)
        var h = HTTPHeaders()
        if let st = FileSystem.stat(target.filePath) { h.add("ETag", st.etag) }
        return existed ? HTTPResponse(status: 204, headers: h) : .text(201, "created", headers: h)
    }

    func abort() {
        if !failed { failed = true; sink.discardBuffer(); FileSystem.unlink(sink.path) }
    }

    private func fail(_ response: HTTPResponse) -> HTTPResponse {
        failed = true
        sink.discardBuffer()
        FileSystem.unlink(sink.path)
        return response
    }

    /// 507 when the disk is full (the partial data is already gone), 500 otherwise; never the full error text
    /// with system paths beyond the client's own.
    static func response(for error: any Error, path: StoragePath) -> HTTPResponse {
        if let e = error as? FileSystemError, e.isNoSpace { return .text(507, "insufficient storage for \(path.relative)") }
        if let e = error as? FileSystemError { return .text(500, "cannot store \(path.relative): \(String(cString: strerror(e.errno)))") }
        return .text(500, "cannot store \(path.relative)")
    }
}
