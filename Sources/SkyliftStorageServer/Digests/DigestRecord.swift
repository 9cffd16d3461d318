import Foundation
import SkyliftHashing
import SkyliftCore

/// What a stored file held when the server wrote it: digests of its bytes, and the size, modification time
/// and inode they were computed for.
///
/// A record counts only while the file still has that size, mtime and inode (``describes(_:)``): a file
/// rewritten or replaced behind the server's back has no known digest until it is hashed again.
/// Stored as one line of ASCII (see ``encoded``) in an extended attribute of the file itself
/// (``DigestStore``), so anyone with write access to the tree can write one: the parser is as strict with
/// it as with a request header.
struct DigestRecord: Sendable, Equatable {
    var sha256: [UInt8]
    var sha1: [UInt8]?
    var md5: [UInt8]?
    var size: Int64
    var mtime: FileTime
    var inode: UInt64

    /// Longest encoding accepted; a real one is under 300 bytes.
    static let maxEncodedBytes = 512
    static let magic = "skylift-digest/1"

    /// True when `stat` is the file this record was computed for.
    func describes(_ stat: FileStat) -> Bool {
        stat.kind == .file && stat.size == size && stat.mtime == mtime && stat.inode == inode
    }

    func digest(_ algorithm: DigestAlgorithm) -> [UInt8]? {
        switch algorithm {
        case .sha256: sha256
        case .sha1: sha1
        case .md5: md5
        }
    }

    /// `skylift-digest/1 size=N mtime=NS inode=N sha256=HEX [sha1=HEX] [md5=HEX]`.
    var encoded: [UInt8] {
        var fields = [Self.magic, "size=\(size)", "mtime=\(mtime.recordText)", "inode=\(inode)", "sha256=\(sha256.hexString)"]
        if let sha1 { fields.append("sha1=\(sha1.hexString)") }
        if let md5 { fields.append("md5=\(md5.hexString)") }
        return Array(fields.joined(separator: " ").utf8)
    }

    /// Parses ``encoded``; nil for anything else (unknown or repeated fields, wrong digest lengths, numbers
    /// out of range, too long).
    init?(encoded bytes: [UInt8]) {
        guard bytes.count <= Self.maxEncodedBytes, bytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F || $0 == 0x20 }) else { return nil }
        let fields = bytes.split(separator: 0x20, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        guard fields.first == Self.magic else { return nil }
        var values: [String: String] = [:]
        for field in fields.dropFirst() {
            guard let eq = field.firstIndex(of: "=") else { return nil }
            let key = String(field[..<eq])
            guard ["size", "mtime", "inode", "sha256", "sha1", "md5"].contains(key), values[key] == nil else { return nil }
            values[key] = String(field[field.index(after: eq)...])
        }
        guard let size = values["size"].flatMap(Self.decimal).flatMap({ Int64(exactly: $0) }),
              let mtime = values["mtime"].flatMap(Self.time),
              let inode = values["inode"].flatMap(Self.decimal),
              let sha256 = values["sha256"].flatMap({ Self.hex($0, length: 32) }) else { return nil }
        var sha1: [UInt8]?, md5: [UInt8]?
        if let text = values["sha1"] { guard let d = Self.hex(text, length: 20) else { return nil }; sha1 = d }
        if let text = values["md5"] { guard let d = Self.hex(text, length: 16) else { return nil }; md5 = d }
        self.init(sha256: sha256, sha1: sha1, md5: md5, size: size, mtime: mtime, inode: inode)
    }

    init(sha256: [UInt8], sha1: [UInt8]?, md5: [UInt8]?, size: Int64, mtime: FileTime, inode: UInt64) {
        self.sha256 = sha256
        self.sha1 = sha1
        self.md5 = md5
        self.size = size
        self.mtime = mtime
        self.inode = inode
    }

    /// Digits only (no sign, no spaces), at most 20 of them; nil on overflow.
    private static func decimal(_ text: String) -> UInt64? {
        guard !text.isEmpty, text.utf8.count <= 20, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return UInt64(text)
    }

    private static func signedDecimal(_ text: String) -> Int64? {
        if text.hasPrefix("-") { return decimal(String(text.dropFirst())).flatMap { Int64(exactly: $0) }.map { -$0 } }
        return decimal(text).flatMap { Int64(exactly: $0) }
    }

    /// `NS` (nanoseconds since 1970) or `SECONDS.NANOSECONDS` for times an Int64 of nanoseconds cannot hold.
    private static func time(_ text: String) -> FileTime? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        if parts.count == 1 { return signedDecimal(text).map(FileTime.init(totalNanoseconds:)) }
        guard parts.count == 2, let seconds = signedDecimal(String(parts[0])), let nanos = decimal(String(parts[1])),
              nanos < 1_000_000_000 else { return nil }
        return FileTime(seconds: seconds, nanoseconds: Int64(nanos))
    }

    private static func hex(_ text: String, length: Int) -> [UInt8]? {
        guard text.utf8.count == length * 2, let bytes = Hex.bytes(text), bytes.count == length else { return nil }
        return bytes
    }
}
