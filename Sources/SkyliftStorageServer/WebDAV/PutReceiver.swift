import Foundation
import SkyliftHTTPServer
import SkyliftCore
import SkyliftSystem

/// Streams a PUT body into a hidden temp file beside the target, fsyncs it, and renames it into place
/// only when the body is complete: readers see the old file or the new one, never a mix or a prefix.
/// Concurrent PUTs of one path each have their own temp file, so the last one to finish wins whole.
/// The temp file and the rename are relative to the target's folder, opened once when the request starts
/// (see ``FileTree``): no link or rename that happens meanwhile can send the bytes anywhere else.
/// The bytes are hashed as they arrive and the record is set on the temp file before the rename, so the
/// file appears with its digests (see ``DigestStore``).
final class PutReceiver: HTTPBodyReceiver {
    private let target: StoragePath
    private let place: Location
    private let tempName = FileSystem.tempName(kind: "put")
    private let sink: FileSink
    private let maxSize: Int64
    private let digests: DigestStore
    private var failed = false
    /// The body's SHA-256 as the client announced it (`Content-Digest`), checked against the recorder's.
    private let expected: [UInt8]?
    /// Hashes the body once, for the record and for the check against `expected`.
    private let recorder: DigestRecorder

    /// Creates the temp file; throws when it cannot be created. With `expected` the body must hash to it.
    init(target: StoragePath, maxSize: Int64, digests: DigestStore, expected: [UInt8]? = nil) throws {
        self.target = target
        self.maxSize = maxSize
        self.digests = digests
        self.expected = expected
        recorder = digests.recorder()
        guard case let .success(place) = FileTree.locate(target, followLast: false) else {
            throw FileSystemError(operation: "open", path: target.relative, errno: .noSuchFile)
        }
        self.place = place
        let file: FileDescriptor
        do {
            file = try FileDescriptor.open(tempName, .writeOnly, options: [.create, .exclusive], permissions: 0o644,
                                           in: place.folder, label: target.relative)
        } catch { throw FileSystemError(error) }
        sink = FileSink(file: file, path: target.relative, digests: recorder)
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
        do { try sink.finishHashing() } catch { return fail(Self.response(for: error, path: target)) }
        if let expected, recorder.sha256 != expected {
            // Damaged on the way: nothing is stored, and the client is told it may send the body again.
            return fail(.text(400, "body does not match its Content-Digest", headers: [ServerDigest.mismatchHeader: "sha-256=10"]))
        }
        let existed = place.stat() != nil
        do {
            // The file keeps its dead properties across a replacement, as it did when they lived by name.
            if existed, let old = try? place.openEntry() {
                defer { old.close() }
                try DeadProperties.copy(from: old, to: sink.file, path: target.relative)
            }
            try sink.sync(recordingIn: digests)
            if place.stat()?.isDirectory == true {
                return fail(.text(405, "a collection exists at \(target.relative)"))
            }
            try place.folder.rename(tempName, to: place.name, in: place.folder, path: target.relative)
        } catch {
            return fail(Self.response(for: error, path: target))
        }
        try? place.folder.sync(path: target.relative)
        var h = HTTPHeaders()
        if let st = place.stat() { h.add("ETag", st.etag) }
        return existed ? HTTPResponse(status: 204, headers: h) : .text(201, "created", headers: h)
    }

    func abort() {
        if !failed { failed = true; sink.discardBuffer(); try? place.folder.removeEntry(tempName) }
    }

    private func fail(_ response: HTTPResponse) -> HTTPResponse {
        failed = true
        sink.discardBuffer()
        try? place.folder.removeEntry(tempName)
        return response
    }

    /// 507 when the disk is full (the partial data is already gone), 500 otherwise; never the full error text
    /// with system paths beyond the client's own.
    static func response(for error: any Error, path: StoragePath) -> HTTPResponse {
        let failure = FileSystemError.from(error, operation: "write", path: path.relative)
        if failure.isNoSpace { return .text(507, "insufficient storage for \(path.relative)") }
        if error is FileSystemError || error is FileError { return .text(500, "cannot store \(path.relative): \(failure.errno)") }
        return .text(500, "cannot store \(path.relative)")
    }
}
