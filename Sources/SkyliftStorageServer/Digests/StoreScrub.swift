import Foundation
import SkyliftHashing
import SkyliftSystem

/// Re-reads every stored file and compares it with its digest record (see `DigestStore`).
///
/// The tree is walked as `StoreWalk` says: links never followed, the root's file system and mount never
/// left, nesting bounded, and whatever is not checked reported in ``ScrubReport/skipped``. A file whose record still describes it (same size, mtime and
/// inode) is hashed and compared: a difference is a ``ScrubReport/Finding/Kind/mismatch``. A file without
/// such a record is reported ``ScrubReport/Finding/Kind/unrecorded`` and, when `record` is set, hashed
/// and recorded so the next scrub can check it. Reading can be limited to `rate` bytes per second.
public struct StoreScrub: Sendable {
    /// Where a running scrub is, for a progress line.
    public struct Progress: Sendable {
        public var files: Int
        public var bytes: Int64
        public var totalFiles: Int
        public var totalBytes: Int64
        public var path: String
    }

    /// How deep the scrub goes: a folder whose path below the root has this many names is not entered.
    public static var maxDepth: Int { StoreWalk.maxDepth }

    public let root: URL
    public let rate: Int64?
    public let record: Bool
    public let algorithms: Set<DigestAlgorithm>

    public init(root: URL, rate: Int64? = nil, record: Bool = true, algorithms: Set<DigestAlgorithm> = [.sha256]) {
        self.root = root
        self.rate = rate
        self.record = record
        self.algorithms = algorithms
    }

    /// Runs the scrub, calling `progress` after each file and about every 64 MiB, and saves the report in
    /// the store. Throws only when the root cannot be opened.
    public func run(progress: (Progress) -> Void = { _ in }) throws -> ScrubReport {
        let rootPath = root.path
        let folder: FileDescriptor
        do { folder = try FileDescriptor.open(rootPath, .readOnly, options: .directory) } catch {
            throw StorageServerError.rootNotADirectory(path: rootPath)
        }
        defer { folder.close() }
        let walk: StoreWalk
        do { walk = try StoreWalk(root: folder, path: rootPath) } catch { throw StorageServerError.rootNotADirectory(path: rootPath) }
        let realRoot = FileSystem.realPath(rootPath) ?? rootPath
        var totalFiles = 0, totalBytes: Int64 = 0
        _ = walk.run { file in
            totalFiles += 1
            totalBytes = totalBytes.addingReportingOverflow(file.status.size).overflow ? .max : totalBytes + file.status.size
        }
        var report = ScrubReport(root: realRoot, started: Date(), finished: Date(), files: 0, bytes: 0, matched: 0,
                                 recorded: 0, findings: [])
        let store = DigestStore(algorithms: algorithms)
        let pacer = Pacer(rate: rate)
        let unchecked = walk.run { file in
            let (filesBefore, bytesBefore) = (report.files, report.bytes)
            check(file, walk: walk, store: store, pacer: pacer, into: &report) { bytes in
                progress(Progress(files: filesBefore, bytes: bytesBefore + bytes, totalFiles: totalFiles,
                                  totalBytes: totalBytes, path: file.path))
            }
            progress(Progress(files: report.files, bytes: report.bytes, totalFiles: totalFiles, totalBytes: totalBytes,
                              path: file.path))
        }
        report.findings += unchecked.unreadable
        report.skipped += unchecked.skipped
        report.skipped.sort { $0.path < $1.path }
        report.finished = Date()
        try? report.save()
        return report
    }

    /// Checks one file and adds what it found to `report`.
    private func check(_ entry: StoreWalk.File, walk: StoreWalk, store: DigestStore, pacer: Pacer,
                       into report: inout ScrubReport, reading: (Int64) -> Void) {
        let relative = entry.path
        let file: FileDescriptor
        do {
            file = try FileDescriptor.open(entry.name, .readOnly, options: [.noFollow, .nonBlocking], in: entry.folder, label: relative)
        } catch {
            report.findings.append(.init(path: relative, kind: .unreadable, detail: "\(error)"))
            report.files += 1
            return
        }
        defer { file.close() }
        guard let before = try? file.status(path: relative), before.isRegular else { return }
        // Checked on the open file: a file bind-mounted over a name in the tree is not read (nor recorded).
        if let reason = walk.outside(file, before) {
            report.skipped.append(.init(path: relative, reason: reason))
            return
        }
        report.files += 1
        let stat = FileStat(before)
        let known = store.load(fd: file, stat: stat)
        let recorder = store.recorder()
        var readSoFar: Int64 = 0, reported: Int64 = 0
        do {
            let count = try DigestStore.read(file, path: relative) { chunk in
                recorder.update(chunk)
                pacer.pace(chunk.count)
                readSoFar += Int64(chunk.count)
                if readSoFar - reported >= 64 << 20 { reading(readSoFar); reported = readSoFar }
            }
            report.bytes += count
        } catch {
            report.findings.append(.init(path: relative, kind: .unreadable, detail: "\(error)"))
            return
        }
        guard let after = try? file.status(path: relative), FileStat(after) == stat else {
            report.findings.append(.init(path: relative, kind: .changed, detail: "changed while being read"))
            return
        }
        compare(recorder.finish(for: stat), with: known, file, relative, store: store, into: &report)
    }

    /// Adds what the bytes read (`found`) say against the record (`known`, nil when none describes the file).
    private func compare(_ found: DigestRecord, with known: DigestRecord?, _ file: FileDescriptor, _ relative: String,
                         store: DigestStore, into report: inout ScrubReport) {
        if let known {
            report.compare(found.sha256, withRecorded: known.sha256, path: relative)
            return
        }
        var detail = "no digest record"
        if record && store.save(found, fd: file, path: relative) {
            report.recorded += 1
            detail += "; recorded sha256 \(found.sha256.hexString)"
        }
        report.findings.append(.init(path: relative, kind: .unrecorded, detail: detail))
    }
}

/// Keeps reading at or under a byte rate: after each chunk, waits until the bytes so far are due.
final class Pacer: @unchecked Sendable {
    // @unchecked: used by one scrub on one thread (or one task); Sendable only so a scrub's methods can hold one.
    private let rate: Int64?
    private let start = Date()
    private var bytes: Int64 = 0

    init(rate: Int64?) { self.rate = rate }

    /// Counts `count` more bytes; the seconds to wait before reading on (0 when reading is on time).
    private func due(after count: Int) -> Double {
        guard let rate, rate > 0 else { return 0 }
        bytes += Int64(count)
        let ahead = Double(bytes) / Double(rate) - Date().timeIntervalSince(start)
        return ahead > 0.001 ? ahead : 0
    }

    /// For a reader on a thread of its own: sleeps it.
    func pace(_ count: Int) {
        let wait = due(after: count)
        if wait > 0 { Thread.sleep(forTimeInterval: wait) }
    }

    /// For a reader in a task: suspends it.
    func paceTask(_ count: Int) async {
        let wait = due(after: count)
        if wait > 0 { try? await Task.sleep(for: .seconds(wait)) }
    }
}
