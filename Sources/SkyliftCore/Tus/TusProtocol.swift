import Foundation

/// The tus 1.0 wire format, shared by the client (`Remotes.TusRemote`) and the server
/// (`StorageServer.TusUploads`): header names, the values they carry and how they are read and written.
///
/// Besides core tus and its `creation`, `checksum` and `termination` extensions it defines `block-checksum`
/// (see ``BlockDigests``), which lets one PATCH carry a whole file while every block of it stays verified.
/// Everything here reads hostile input: bounded, checked, never trapping.
public enum TusProtocol {
    /// The protocol version both sides speak.
    public static let version = "1.0.0"
    /// `Content-Type` of every PATCH body.
    public static let offsetContentType = "application/offset+octet-stream"
    /// The status a server answers when a body's (or a block's) checksum does not match.
    public static let checksumMismatchStatus = 460
    /// The extension name announcing block checksums.
    public static let blockChecksumExtension = "block-checksum"

    /// Header names.
    public enum Header {
        public static let resumable = "Tus-Resumable"
        public static let versions = "Tus-Version"
        public static let extensions = "Tus-Extension"
        public static let maxSize = "Tus-Max-Size"
        public static let checksumAlgorithms = "Tus-Checksum-Algorithm"
        public static let offset = "Upload-Offset"
        public static let length = "Upload-Length"
        public static let deferLength = "Upload-Defer-Length"
        public static let metadata = "Upload-Metadata"
        public static let checksum = "Upload-Checksum"
        public static let expires = "Upload-Expires"
        /// Creation: the client asks for block checksums (value: the algorithm, `crc32c` or `sha256`); the
        /// creation and HEAD answers name the upload's.
        public static let blockChecksum = "Upload-Block-Checksum"
        /// OPTIONS: the block checksums the server accepts (absent: `sha256` only).
        public static let blockChecksumAlgorithms = "Tus-Block-Checksum-Algorithm"
        /// OPTIONS (`Tus-Block-Size`) and the upload's HEAD/creation answer (`Upload-Block-Size`).
        public static let serverBlockSize = "Tus-Block-Size"
        public static let blockSize = "Upload-Block-Size"
        /// HEAD: how many blocks the client has confirmed (or reported bad) so far.
        public static let blocksConfirmed = "Upload-Blocks-Confirmed"
        /// A confirmation PATCH: the client's digests of a run of blocks (see ``BlockDigests``).
        public static let blockDigests = "Upload-Block-Digests"
        /// HEAD and a 460 answer: blocks whose digests did not match and must be sent again.
        public static let badBlocks = "Upload-Bad-Blocks"
    }

    /// Checksum algorithms this code knows, with their digest sizes (`crc32c` only for a block sent again).
    public static let checksumSizes: [String: Int] = ["sha1": 20, "sha256": 32, "crc32c": 4]

    // MARK: Upload-Metadata

    /// `Upload-Metadata`: comma-separated `key base64(value)` pairs, in the given order.
    public static func metadata(_ pairs: [(String, String)]) -> String {
        pairs.map { "\($0.0) \(Data($0.1.utf8).base64EncodedString())" }.joined(separator: ",")
    }

    /// `key base64,key2 base64,flag` back into pairs (a key without value maps to ""); nil when a pair has more
    /// than two parts or a value is not base64 of UTF-8.
    public static func parseMetadata(_ header: String) -> [String: String]? {
        // Split on the bytes, not on Characters: a comma or space right after a prepending mark (U+06DD) is
        // part of that mark's grapheme, so a Character split kept it inside a key (found by fuzzing).
        var out: [String: String] = [:]
        for pair in header.utf8.split(separator: UInt8(ascii: ",")) {
            let kv = pair.split(omittingEmptySubsequences: true) { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
            guard let key = kv.first, kv.count <= 2 else { return nil }
            if kv.count == 2 {
                guard let data = Data(base64Encoded: String(decoding: kv[1], as: UTF8.self)),
                      let s = String(data: data, encoding: .utf8) else { return nil }
                out[String(decoding: key, as: UTF8.self)] = s
            } else {
                out[String(decoding: key, as: UTF8.self)] = ""
            }
        }
        return out
    }

    // MARK: Upload-Checksum

    /// `Upload-Checksum: <algorithm> <base64 digest>`.
    public static func checksumHeader(_ algorithm: String, _ digest: [UInt8]) -> String {
        "\(algorithm) \(Data(digest).base64EncodedString())"
    }

    /// Why an `Upload-Checksum` value was refused.
    public enum ChecksumRefusal: Error, Equatable {
        case malformed
        case unsupported(String)
    }

    /// Reads `Upload-Checksum`: a known algorithm (lower-cased) and a digest of exactly its size.
    public static func parseChecksum(_ value: String) -> Result<(algorithm: String, digest: [UInt8]), ChecksumRefusal> {
        let parts = value.trimmingSpaces().split(separator: " ", omittingEmptySubsequences: true)
        guard parts.count == 2 else { return .failure(.malformed) }
        let algorithm = parts[0].lowercased()
        guard let size = checksumSizes[algorithm] else { return .failure(.unsupported(String(parts[0].prefix(32)))) }
        guard let digest = Data(base64Encoded: String(parts[1])), digest.count == size else { return .failure(.malformed) }
        return .success((algorithm, Array(digest)))
    }

    // MARK: Numbers and lists

    /// `Upload-Offset`, when present and a non-negative integer.
    public static func offset(_ headers: HTTPHeaders) -> Int64? { headers.integer(Header.offset) }

    /// `Upload-Length`, when present and a non-negative integer.
    public static func length(_ headers: HTTPHeaders) -> Int64? { headers.integer(Header.length) }

    /// A comma-separated list (`Tus-Version`, `Tus-Extension`), trimmed, empty items dropped.
    public static func list(_ value: String?) -> [String] {
        (value ?? "").split(separator: ",").map { String($0).trimmingSpaces() }.filter { !$0.isEmpty }
    }

    /// `Upload-Bad-Blocks`: block indexes, at most ``BlockDigests/maxCount``; nil when malformed.
    public static func parseBadBlocks(_ value: String) -> [Int]? {
        let items = list(value)
        guard items.count <= BlockDigests.maxCount else { return nil }
        var out: [Int] = []
        for item in items {
            guard let n = Int64(digits: item), n <= Int64(Int32.max) else { return nil }
            out.append(Int(n))
        }
        return out
    }

    /// The request headers every tus request but OPTIONS carries.
    public static func baseHeaders() -> HTTPHeaders { [Header.resumable: version] }
}
