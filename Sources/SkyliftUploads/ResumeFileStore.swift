import Foundation
import SkyliftHashing
import SkyliftCore
import SkyliftSystem

/// What Skylift remembers about one source → destination pair between runs.
public struct ResumeRecord: Codable, Sendable, Hashable {
    /// The source as given (absolute path or URL).
    public var source: String
    /// The source's identity when the upload started (file: device, inode, size, mtime; URL: ETag, length).
    public var identity: String
    /// The destination object's URL.
    public var destination: String
    /// `tus`, `webdav` or `s3`.
    public var protocolName: String
    /// What the remote needs to reattach (tus upload URL); never a secret.
    public var token: String?
    /// Object length in bytes.
    public var length: Int64
    /// Last offset the server confirmed (informational: the server's answer always wins).
    public var confirmedOffset: Int64
    /// Set once the server confirmed the whole object.
    public var completed: Bool
    /// The destination's ETag after completion, for skip-if-present.
    public var etag: String?
    public var updated: Date

    public init(source: String, identity: String, destination: String, protocolName: String, token: String?, length: Int64,
                confirmedOffset: Int64 = 0, completed: Bool = false, etag: String? = nil, updated: Date = Date()) {
        self.source = source
        self.identity = identity
        self.destination = destination
        self.protocolName = protocolName
        self.token = token
        self.length = length
        self.confirmedOffset = confirmedOffset
        self.completed = completed
        self.etag = etag
        self.updated = updated
    }
}

/// Resume records as small JSON files in one directory, one per source → destination pair, each replaced
/// atomically (write to a temporary file, flush to disk, rename), so a crash leaves the old or the new
/// record, never a torn one.
public struct ResumeFileStore: ResumeStore {
    public let directory: URL

    public init(directory: URL) {
        self.directory = directory
    }

    /// `--state` default: `$XDG_STATE_HOME/skylift`, else `~/.local/state/skylift`.
    public static func defaultDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        if let xdg = environment["XDG_STATE_HOME"], xdg.hasPrefix("/") {
            return URL(fileURLWithPath: xdg).appendingPathComponent("skylift")
        }
        let home = environment["HOME"].map { URL(fileURLWithPath: $0) } ?? FileManager.default.homeDirectoryForCurrentUser
        return home.appendingPathComponent(".local/state/skylift")
    }

    /// The file holding the record for `source` → `destination`.
    public func fileURL(source: String, destination: String) -> URL {
        let key = Digest.hash(.sha256, Array("\(source)\n\(destination)".utf8)).hexString
        return directory.appendingPathComponent("uploads").appendingPathComponent(String(key.prefix(40)) + ".json")
    }

    /// The stored record, or nil when there is none or it cannot be read (an unreadable record only costs a
    /// fresh start).
    public func load(source: String, destination: String) -> ResumeRecord? {
        let url = fileURL(source: source, destination: destination)
        guard let data = try? Data(contentsOf: url) else { return nil }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .utcTimestamp
        guard let record = try? decoder.decode(ResumeRecord.self, from: data),
              record.source == source, record.destination == destination else { return nil }
        return record
    }

    /// Replaces the record atomically and durably. The folders are created 0700 and the file 0600: a record
    /// names a tus upload URL, which is all another user would need to write into that upload.
    ///
    /// The write (two fsyncs and a rename) runs on the engine's `skylift-state` executor, never on the
    /// cooperative pool; the caller's task is suspended meanwhile.
    public func save(_ record: ResumeRecord) async throws {
        try await UploadExecutors.stateFiles.run { try self.write(record) }
    }

    private func write(_ record: ResumeRecord) throws {
        let url = fileURL(source: record.source, destination: record.destination)
        let folder = url.deletingLastPathComponent()
        do {
            let encoder = JSONEncoder()
            encoder.dateEncodingStrategy = .utcTimestamp
            encoder.outputFormatting = [.sortedKeys]
            try AtomicFile.replace(url.path, with: Array(try encoder.encode(record)))
        } catch {
            throw UploadError.stateNotWritable(path: folder.path, reason: Self.reason(error))
        }
    }

    /// Forgets the record (missing is fine).
    public func remove(source: String, destination: String) {
        try? FileManager.default.removeItem(at: fileURL(source: source, destination: destination))
    }

    private static func reason(_ error: any Error) -> String {
        if let e = error as? CocoaError, let path = e.userInfo[NSFilePathErrorKey] as? String {
            return "\(e.code) at \(path)"
        }
        return String(describing: error)
    }
}
