import Foundation
import SkyliftHTTPServer
import SkyliftHashing
import SkyliftCore
import SkyliftSystem

/// Appends a PATCH body to a `block-checksum` upload, making progress durable as it arrives: each time a block
/// is full (or the upload's last byte is in) the data is fdatasync'd and the block's checksum recorded in
/// `<id>.blocks`. A body cut short keeps every recorded block; only the block in progress is lost.
///
/// Nothing here is trusted yet: the upload finishes only once the client confirmed every checksum
/// (see `TusUploads+Blocks`). Meanwhile the whole file's digests run over the same bytes (``running``, fed by the
/// sink), so completion need not read the file again.
final class TusBlockReceiver: HTTPBodyReceiver {
    private let upload: TusUpload
    private let blocks: TusBlockFile
    private let blockSize: Int64
    private let length: Int64
    private let sink: FileSink
    private let startOffset: Int64
    /// Where the last recorded block ends.
    private var durable: Int64
    private var checksum: BlockChecksum
    /// The whole file's digests from offset 0 up to ``position``, when this body continues them.
    private var running: DigestRecorder?
    private let streamed: StreamedDigests
    private let done: (HTTPResponse) -> HTTPResponse
    private let release: () -> Void
    private var failed = false

    /// `offset` must be a block boundary (the server's offset always is). `done` adds the final headers;
    /// `release` runs once when the receiver is through with the upload. `running` is the whole file's digest
    /// so far when it covers exactly `offset` bytes; it goes back to `streamed` when the body ends cleanly.
    init(upload: TusUpload, info: TusUpload.Info, offset: Int64, length: Int64, blockSize: Int64,
         running: DigestRecorder?, streamed: StreamedDigests,
         done: @escaping (HTTPResponse) -> HTTPResponse, release: @escaping () -> Void) throws {
        self.upload = upload
        blocks = upload.blockFile(info)
        checksum = BlockChecksum(info.blockAlgorithm)
        self.blockSize = blockSize
        self.length = length
        startOffset = offset
        durable = offset
        self.running = running
        self.streamed = streamed
        self.done = done
        self.release = release
        // Appending: after the cut below, writes land at `offset`.
        let fd = try FileSystem.open(upload.dataPath, .writeOnly, .append)
        // Bytes past the last recorded checksum (a crash between data and checksum) are dropped before appending.
        do { try fd.setLength(offset, path: upload.dataPath) } catch {
            fd.close()
            throw FileSystemError(error)
        }
        // The running digest goes through the sink, so past its first buffer it is computed on the sink's
        // hashing thread (``HashRing``) beside this one, as for a PUT.
        sink = FileSink(file: fd, path: upload.dataPath, digests: running)
        // Checksums past the offset go too (a short last block is kept when the offset is the upload's end).
        try blocks.keep(TusProtocol.blockCount(length: offset, blockSize: blockSize))
    }

    private var position: Int64 { startOffset + sink.written }

    func receive(_ chunk: UnsafeRawBufferPointer) -> HTTPResponse? {
        guard !failed else { return nil }
        guard Int64(chunk.count) <= length - position else { return fail(TusUploads.tusResponse(413, "PATCH runs past Upload-Length \(length)")) }
        var rest = chunk
        while !rest.isEmpty {
            let blockEnd = min(length, (position / blockSize + 1) * blockSize)
            let n = Int(min(Int64(rest.count), blockEnd - position))
            let piece = UnsafeRawBufferPointer(rebasing: rest[0 ..< n])
            do { try sink.append(piece) } catch { return fail(failure(error)) }
            checksum.update(piece)
            rest = UnsafeRawBufferPointer(rebasing: rest[n...])
            if position == blockEnd {
                do { try checkpoint() } catch { return fail(failure(error)) }
            }
        }
        return nil
    }

    /// Makes the block just completed durable, then records its checksum.
    private func checkpoint() throws {
        try sink.flush()
        try sink.file.syncData(path: upload.dataPath)
        let index = Int((position - 1) / blockSize)
        try blocks.record(index, checksum.finalizeAndReset())
        durable = position
    }

    func finish() -> HTTPResponse {
        defer { release() }
        if failed { return TusUploads.tusResponse(500, "upload failed") }
        // A body that ended inside a block: that block has no checksum yet, so it is not kept.
        cutBack()
        keepRunning()
        var h = HTTPHeaders()
        h.add(TusProtocol.Header.offset, String(durable))
        return done(HTTPResponse(status: 204, headers: h))
    }

    func abort() {
        defer { release() }
        guard !failed else { return }
        cutBack()
        keepRunning()
    }

    /// Hands the running digest on when it covers exactly what the upload kept; a cut block makes it useless.
    /// Kept bytes are all written (every checkpoint flushes), so waiting for the sink's hashing completes it.
    private func keepRunning() {
        guard let r = running.take(), !failed, position == durable, (try? sink.finishHashing()) != nil else { return }
        streamed.keep(r, for: upload.id, covered: durable)
    }

    private func fail(_ response: HTTPResponse) -> HTTPResponse {
        failed = true
        running = nil
        cutBack()
        return response
    }

    private func cutBack() {
        sink.discardBuffer()
        guard position != durable else { return }
        if (try? sink.file.setLength(durable, path: upload.dataPath)) != nil { try? sink.file.syncData(path: upload.dataPath) }
    }

    private func failure(_ error: any Error) -> HTTPResponse {
        if let e = error as? FileSystemError, e.isNoSpace { return TusUploads.tusResponse(507, "insufficient storage") }
        if let e = error as? FileError, e.errno?.isNoSpace == true { return TusUploads.tusResponse(507, "insufficient storage") }
        return TusUploads.tusResponse(500, "cannot store upload data")
    }
}
