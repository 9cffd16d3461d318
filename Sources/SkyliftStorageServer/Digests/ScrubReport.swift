import Foundation
import SkyliftCore
import SkyliftSystem

/// What one `skylift scrub` run found, kept in the store (`<root>/.skylift-scrub.json`, mode 0600) for
/// `skylift status`.
public struct ScrubReport: Codable, Sendable, Equatable {
    /// One file that did not check out.
    public struct Finding: Codable, Sendable, Equatable {
        public enum Kind: String, Codable, Sendable {
            /// The record describes the file (same size, mtime, inode) but its bytes hash differently: rot,
            /// or a write that kept the mtime.
            case mismatch
            /// No record describes the file: never written through the server, or changed behind its back.
            /// With recording on, the scrub has recorded it now.
            case unrecorded
            /// The file changed while it was being read; checked next time.
            case changed
            /// Reading it failed.
            case unreadable
        }

        /// Path below the root.
        public var path: String
        public var kind: Kind
        public var detail: String?

        public init(path: String, kind: Kind, detail: String? = nil) {
            self.path = path
            self.kind = kind
            self.detail = detail
        }
    }

    /// Something in the tree the scrub did not enter or check, by its rules (see `skylift scrub --help`).
    public struct Skip: Codable, Sendable, Equatable {
        public enum Reason: String, Codable, Sendable {
            /// A folder at the depth limit: not entered.
            case tooDeep = "too-deep"
            /// On another file system than the store (a mount point below the root).
            case otherFileSystem = "other-file-system"
            /// On another mount of the store's file system (a bind mount below the root).
            case otherMount = "other-mount"
            /// A symbolic link: never followed.
            case link
            /// A FIFO, socket or device.
            case special
        }

        /// Path below the root.
        public var path: String
        public var reason: Reason
        public var detail: String?

        public init(path: String, reason: Reason, detail: String? = nil) {
            self.path = path
            self.reason = reason
            self.detail = detail
        }
    }

    /// The store's real path.
    public var root: String
    public var started: Date
    public var finished: Date
    public var files: Int
    public var bytes: Int64
    /// Files whose bytes matched their record.
    public var matched: Int
    /// Unrecorded files given a record by this run.
    public var recorded: Int
    public var findings: [Finding]
    /// What was not entered or checked (links, special files, other file systems and mounts, too deep).
    public var skipped: [Skip]

    /// Mismatched or unreadable files: what makes `scrub` exit 1.
    public var damaged: [Finding] { findings.filter { $0.kind == .mismatch || $0.kind == .unreadable } }

    public func count(_ kind: Finding.Kind) -> Int { findings.lazy.filter { $0.kind == kind }.count }

    public init(root: String, started: Date, finished: Date, files: Int, bytes: Int64, matched: Int, recorded: Int,
                findings: [Finding], skipped: [Skip] = []) {
        (self.root, self.started, self.finished, self.files, self.bytes) = (root, started, finished, files, bytes)
        (self.matched, self.recorded, self.findings, self.skipped) = (matched, recorded, findings, skipped)
    }

    /// Reads a report; one saved before skips were reported has none.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        try self.init(root: c.decode(String.self, forKey: .root), started: c.decode(Date.self, forKey: .started),
                      finished: c.decode(Date.self, forKey: .finished), files: c.decode(Int.self, forKey: .files),
                      bytes: c.decode(Int64.self, forKey: .bytes), matched: c.decode(Int.self, forKey: .matched),
                      recorded: c.decode(Int.self, forKey: .recorded), findings: c.decode([Finding].self, forKey: .findings),
                      skipped: c.decodeIfPresent([Skip].self, forKey: .skipped) ?? [])
    }

    /// Counts the file at `path` as matched when the SHA-256 its bytes hashed to (`found`) is the recorded one
    /// (`known`), else adds it as a mismatch naming both.
    mutating func compare(_ found: [UInt8], withRecorded known: [UInt8], path: String) {
        if found == known {
            matched += 1
        } else {
            findings.append(.init(path: path, kind: .mismatch, detail: "recorded sha256 \(known.hexString), read \(found.hexString)"))
        }
    }

    static let fileName = PathResolver.hiddenPrefix + "scrub.json"

    /// The last saved report of the store at `root`; nil when it was never scrubbed (or the file is unreadable).
    public static func load(root: URL) -> ScrubReport? {
        let path = root.path + "/" + fileName
        // The report lies inside the served tree: read it through the secret-file reader, which refuses a
        // file others can write and bounds the size.
        guard let bytes = try? PrivateFiles.readSecret(path, limit: 64 << 20) else { return nil }
        return try? Self.decoder.decode(ScrubReport.self, from: Data(bytes))
    }

    /// Saves the report into the store, replacing the last one.
    public func save() throws {
        let path = root + "/" + Self.fileName
        try AtomicFile.replace(path, with: Array(try Self.encoder.encode(self)),
                               temporary: root + "/" + PathResolver.hiddenPrefix + "tmp-scrub")
    }

    static var encoder: JSONEncoder {
        let e = JSONEncoder()
        e.dateEncodingStrategy = .iso8601
        e.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return e
    }

    static var decoder: JSONDecoder {
        let d = JSONDecoder()
        d.dateDecodingStrategy = .iso8601
        return d
    }

    /// The report as one JSON object (what `scrub --json` prints).
    public var json: String { String(decoding: (try? Self.encoder.encode(self)) ?? Data("{}".utf8), as: UTF8.self) }
}
