import Foundation
import SkyliftHTTPServer
import SkyliftHashing
import SkyliftCore
import SkyliftSystem

/// Writes one block of a `block-checksum` upload again, in place: a block whose digest did not match is sent
/// alone, at its own offset, with `Upload-Checksum` (the upload's block checksum). The bytes land over the bad
/// ones; only when the body's checksum matches is the block's recorded one replaced and the block counted good.
final class TusRepairReceiver: HTTPBodyReceiver {
    private let upload: TusUpload
    private let info: TusUpload.Info
    private let index: Int
    private let range: ByteRange
    private let expected: [UInt8]
    private let fd: FileDescriptor
    private var written: Int64 = 0
    private var checksum: BlockChecksum
    private var failed = false
    /// Called with whether the block now matches; returns the answer.
    private let done: (Bool) -> HTTPResponse
    private let release: () -> Void

    init(upload: TusUpload, info: TusUpload.Info, index: Int, range: ByteRange, expected: [UInt8],
         done: @escaping (Bool) -> HTTPResponse, release: @escaping () -> Void) throws {
        self.upload = upload
        self.info = info
        checksum = BlockChecksum(info.blockAlgorithm)
        self.index = index
        self.range = range
        self.expected = expected
        self.done = done
        self.release = release
        fd = try FileDescriptor.open(upload.dataPath, .writeOnly)
    }

    deinit { fd.close() }

    func receive(_ chunk: UnsafeRawBufferPointer) -> HTTPResponse? {
        guard !failed else { return nil }
        guard Int64(chunk.count) <= range.length - written else {
            failed = true
            return TusUploads.tusResponse(413, "body runs past block \(index)")
        }
        do { try fd.writeAll(chunk, at: range.offset + written, path: upload.dataPath) } catch {
            failed = true
            return TusUploads.tusResponse(error.errno?.isNoSpace == true ? 507 : 500, "cannot store upload data")
        }
        checksum.update(chunk)
        written += Int64(chunk.count)
        return nil
    }

    func finish() -> HTTPResponse {
        defer { release() }
        if failed { return TusUploads.tusResponse(500, "upload failed") }
        guard written == range.length else {
            return TusUploads.tusResponse(400, "block \(index) needs exactly \(range.length) bytes")
        }
        let good = checksum.finalizeAndReset() == expected
        if good {
            do {
                try fd.syncData(path: upload.dataPath)
                try upload.blockFile(info).record(index, expected)
            } catch {
                return TusUploads.tusResponse(500, "cannot store upload data")
            }
        }
        return done(good)
    }

    /// A cut repair leaves the block bad, as it was.
    func abort() { release() }
}
