import Foundation
import SkyliftCore
import SkyliftHashing
import SkyliftS3

/// The journal of a folder move, the object `<prefix>.skylift/moves/<id>`: written before the first copy,
/// removed after the last source is deleted. While it exists, any instance can finish the move.
struct S3MoveRecord: Sendable, Hashable, Codable {
    var id: String
    var from: String
    var to: String
}

extension S3Store {
    /// Copies the file or folder `from` to `to` on the service (CopyObject; UploadPartCopy past 5 GiB), no byte
    /// passing through this machine. A folder is every key below it, its marker included; what is at the
    /// destination under the same names is replaced, other keys there stay.
    public func copy(_ from: String, to: String) async throws {
        let (from, to) = try Self.checkedPair(from, to, operation: "copy")
        guard let entry = try await stat(from) else { throw S3StoreError(operation: "copy", path: from, status: 404, reason: .notFound) }
        if entry.kind == .file {
            try await copyKey(key(from), to: key(to), size: entry.info.length ?? 0, operation: "copy", path: from)
            return
        }
        let target = folderKey(to)
        for object in try await keys(under: folderKey(from), operation: "copy", path: from) {
            let destination = Self.rebased(object.key, from: folderKey(from), to: target)
            try await copyKey(object.key, to: destination, size: object.size, operation: "copy", path: from)
        }
    }

    /// Moves the file or folder `from` to `to`: copies on the service, then deletes the sources.
    ///
    /// A file is copied, then deleted: a crash leaves it at the source or at both places, never at neither. A
    /// folder's move is journaled first (`.skylift/moves/<id>`), so a crash at any point leaves a journal that
    /// ``recoverInterruptedMoves(idleFor:now:)`` (on any instance) finishes: every source is at the destination before any
    /// source is deleted, and nothing stored is ever lost.
    public func move(_ from: String, to: String) async throws {
        let (from, to) = try Self.checkedPair(from, to, operation: "move")
        guard let entry = try await stat(from) else { throw S3StoreError(operation: "move", path: from, status: 404, reason: .notFound) }
        if entry.kind == .file {
            try await copyKey(key(from), to: key(to), size: entry.info.length ?? 0, operation: "move", path: from)
            try await remove(key: key(from), operation: "move", path: from)
            return
        }
        let record = try await beginMove(from, to: to)
        _ = try await copyRemaining(record)
        try await finishMove(record)
    }

    /// How often a folder move in its copying phase writes its journal again: a journal older than a few of these
    /// belongs to a move that stopped (its instance crashed or was killed).
    public static let moveHeartbeat: TimeInterval = 30

    /// Finishes every folder move whose journal is in the bucket and was last written more than `idleFor` seconds
    /// ago (interrupted by a crash or a failure: a running move writes its journal every ``moveHeartbeat`` while it
    /// copies): copies the sources not yet at the destination, deletes the sources, removes the journal. Returns how
    /// many it finished.
    @discardableResult
    public func recoverInterruptedMoves(idleFor: TimeInterval = 0, now: Date = Date()) async throws -> Int {
        var finished = 0
        for journal in try await keys(under: systemKey("moves/"), operation: "recover", path: "") {
            if idleFor > 0, let written = journal.lastModified, written > now.addingTimeInterval(-idleFor) { continue }
            guard let object = try await systemObject(journal.key, operation: "recover") else { continue }
            guard let record = try? JSONDecoder().decode(S3MoveRecord.self, from: Data(object.bytes)) else {
                throw S3StoreError(operation: "recover", path: path(ofKey: journal.key), reason: .invalidResponse("move journal does not parse"))
            }
            _ = try await copyRemaining(record)
            try await finishMove(record)
            finished += 1
        }
        return finished
    }

    // MARK: Steps (internal so tests can stop a move between them)

    /// Writes the journal of moving folder `from` to `to`.
    func beginMove(_ from: String, to: String) async throws -> S3MoveRecord {
        let record = S3MoveRecord(id: UUID().uuidString.lowercased(), from: from, to: to)
        try await writeJournal(record, condition: .absent)
        return record
    }

    /// Writes the journal of `record` (again, as a heartbeat, with `.always`).
    private func writeJournal(_ record: S3MoveRecord, condition: S3WriteCondition) async throws {
        do {
            let bytes = Array(try JSONEncoder().encode(record))
            try await client.putObject(bucket: bucket, key: systemKey("moves/" + record.id), body: .bytes(bytes),
                                       sha256: Digest.hash(.sha256, bytes), contentType: "application/json", metadata: [:],
                                       condition: condition)
        } catch {
            throw S3StoreError.wrapping(error, operation: "move", path: record.from)
        }
    }

    /// Copies each source key of `record` whose destination key is missing or has another ETag, at most `limit`
    /// of them; returns how many it copied.
    func copyRemaining(_ record: S3MoveRecord, limit: Int = .max) async throws -> Int {
        let source = folderKey(record.from), target = folderKey(record.to)
        let present = try await keys(under: target, operation: "move", path: record.to)
        let etags = Dictionary(present.map { ($0.key, $0.etag) }, uniquingKeysWith: { first, _ in first })
        var copied = 0
        var beat = Date()
        for object in try await keys(under: source, operation: "move", path: record.from) where copied < limit {
            let destination = Self.rebased(object.key, from: source, to: target)
            if etags[destination] == object.etag { continue }
            try await copyKey(object.key, to: destination, size: object.size, operation: "move", path: record.from)
            copied += 1
            if Date().timeIntervalSince(beat) > Self.moveHeartbeat {
                try await writeJournal(record, condition: .always)
                beat = Date()
            }
        }
        return copied
    }

    /// Deletes the sources of `record` (marker last), then its journal.
    func finishMove(_ record: S3MoveRecord) async throws {
        try await removeFolder(record.from, operation: "move")
        try await remove(key: systemKey("moves/" + record.id), operation: "move", path: record.from)
    }

    /// One object copied on the service; past the single-copy limit its metadata and type are carried over.
    private func copyKey(_ source: String, to target: String, size: Int64, operation: String, path: String) async throws {
        do {
            if size > S3Client.singleCopyLimit {
                let head = try await client.headObjectMetadata(bucket: bucket, key: source)
                try await client.copyObject(bucket: bucket, from: source, to: target, size: size, metadata: head.metadata,
                                            contentType: head.info.contentType)
            } else {
                try await client.copyObject(bucket: bucket, from: source, to: target, size: size)
            }
        } catch {
            throw S3StoreError.wrapping(error, operation: operation, path: path)
        }
    }

    /// `key`, which starts with `source`, moved below `target` instead.
    static func rebased(_ key: String, from source: String, to target: String) -> String {
        target + String(decoding: key.utf8.dropFirst(source.utf8.count), as: UTF8.self)
    }

    /// Both paths checked, neither the root, not the same, and `to` not inside `from`.
    private static func checkedPair(_ from: String, _ to: String, operation: String) throws -> (String, String) {
        let source = try checked(from, operation: operation), target = try checked(to, operation: operation)
        guard !source.isEmpty, !target.isEmpty, source != target, !target.hasPrefix(source + "/") else {
            throw S3StoreError(operation: operation, path: from, reason: .invalidPath)
        }
        return (source, target)
    }
}
