import Foundation
import SkyliftCore
import SkyliftSystem

/// One unfinished tus upload as persisted under the hidden uploads directory:
/// `<id>.info` (JSON, written durably), `<id>.data` (the bytes so far; its size is the offset) and, while a
/// checksummed PATCH is in flight, `<id>.pending` holding the offset to fall back to if the chunk never verifies.
/// A `block-checksum` upload also has `<id>.blocks`: the checksum of every block made durable (see ``TusBlockFile``).
struct TusUpload: Sendable {
    /// What `<id>.info` holds.
    struct Info: Codable, Sendable {
        /// Total length; nil while deferred.
        var length: Int64?
        /// The `Upload-Metadata` header as the client sent it, echoed back on HEAD.
        var metadata: String
        /// Where the file lands, as segments below the root.
        var target: [String]
        /// `block-checksum`: the block size; nil for a plain tus upload.
        var blockSize: Int64? = nil
        /// `block-checksum`: blocks the client has confirmed or reported bad, from block 0.
        var confirmedBlocks: Int? = nil
        /// `block-checksum`: blocks whose digests did not match and wait to be sent again.
        var badBlocks: [Int]? = nil
        /// `block-checksum`: the algorithm's name; nil in uploads created before there was a choice (SHA-256).
        var blockChecksum: String? = nil
        /// `concatenation`: true for a partial upload, which stays when finished until a final upload joins it.
        var partial: Bool? = nil
        /// `concatenation`: the ids of the partial uploads a final upload joined, in order. A final upload's
        /// record is written once its file is in place; its data file stays empty (it only dates the record).
        var final: [String]? = nil

        /// The block checksum of a `block-checksum` upload.
        var blockAlgorithm: BlockChecksumAlgorithm { blockChecksum.flatMap(BlockChecksumAlgorithm.init(rawValue:)) ?? .sha256 }
    }

    let id: String
    let directory: String

    var infoPath: String { directory + "/" + id + ".info" }
    var dataPath: String { directory + "/" + id + ".data" }
    var pendingPath: String { directory + "/" + id + ".pending" }
    var blocksPath: String { directory + "/" + id + ".blocks" }
    /// A final upload's file while partial uploads are copied into it (`concatenation`); a crash leaves it to
    /// the next sweep, and the partial uploads untouched.
    var joiningPath: String { directory + "/" + id + ".joining" }

    /// Upload ids are 32 lower-case hex digits; anything else never touches the file system.
    static func isValidID(_ id: Substring) -> Bool {
        id.utf8.count == 32 && id.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }

    static func newID() -> String { UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased() }

    func loadInfo() -> Info? {
        guard let data = FileManager.default.contents(atPath: infoPath) else { return nil }
        return try? JSONDecoder().decode(Info.self, from: data)
    }

    /// Writes the info through ``AtomicFile`` (temp file, fsync, rename, fsync of the folder), so a crash
    /// leaves the old or the new one.
    func save(_ info: Info) throws {
        try AtomicFile.replace(infoPath, with: Array(try JSONEncoder().encode(info)), temporary: infoPath + ".tmp")
    }

    /// Bytes durably received so far.
    var offset: Int64? { FileSystem.stat(dataPath)?.size }

    /// Bytes durably received so far for `info`: for a `block-checksum` upload only whole blocks whose digest
    /// was recorded count (a crash between the data and its digest leaves bytes past them, cut on the next PATCH).
    func offset(_ info: Info) -> Int64? {
        guard let size = offset else { return nil }
        guard let blockSize = info.blockSize, let length = info.length else { return size }
        let recorded = Int64(recordedBlocks(info)).multipliedReportingOverflow(by: blockSize)
        return min(size, recorded.overflow ? length : min(recorded.partialValue, length))
    }

    /// Whether every byte is in and, for a `block-checksum` upload, every block confirmed good: what a finished
    /// partial upload must be before a final upload may join it.
    func isFinished(_ info: Info) -> Bool {
        guard let length = info.length, offset(info) == length, !FileManager.default.fileExists(atPath: pendingPath) else { return false }
        guard let blockSize = info.blockSize else { return true }
        return (info.confirmedBlocks ?? 0) >= TusProtocol.blockCount(length: length, blockSize: blockSize) && (info.badBlocks ?? []).isEmpty
    }

    /// `<id>.blocks`, with checksums of the upload's size.
    func blockFile(_ info: Info) -> TusBlockFile { TusBlockFile(path: blocksPath, digestSize: info.blockAlgorithm.byteCount) }

    /// Number of block checksums in `<id>.blocks`.
    func recordedBlocks(_ info: Info) -> Int { Int((FileSystem.stat(blocksPath)?.size ?? 0) / Int64(info.blockAlgorithm.byteCount)) }

    /// When the upload expires: `expiry` seconds after its last change.
    func expires(after expiry: TimeInterval) -> Date? {
        guard let st = FileSystem.stat(dataPath) else { return nil }
        return Date(timeIntervalSince1970: TimeInterval(st.mtime.seconds) + TimeInterval(st.mtime.nanoseconds) / 1e9 + expiry)
    }

    /// Undoes a checksummed chunk that was in flight when the server died: those bytes were never verified.
    func recoverPending() {
        guard let text = try? String(contentsOfFile: pendingPath, encoding: .utf8), let offset = Int64(text) else {
            FileSystem.unlink(pendingPath)
            return
        }
        guard let data = try? FileDescriptor.open(dataPath, .writeOnly) else { return }
        defer { data.close() }
        if (try? data.setLength(offset, path: dataPath)) != nil, (try? data.sync(path: dataPath)) != nil {
            FileSystem.unlink(pendingPath)
        }
    }

    func remove() {
        for p in [dataPath, infoPath, pendingPath, blocksPath, joiningPath, infoPath + ".tmp"] { FileSystem.unlink(p) }
    }
}
