import Foundation
import Hashing
import SkyliftSystem

/// Re-reads every stored file and compares it with its digest record (see ``DigestStore``).
///
/// The tree is walked through folder descriptors: links are never followed, the server's hidden files are
/// left out, FIFOs and devices are skipped. A file whose record still describes it (same size, mtime and
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
        let realRoot = FileSystem.realPath(rootPath) ?? rootPath
        var totalFiles = 0, totalBytes: Int64 = 0
        Self.walk(folder, "") { _, _, _, status in
            totalFiles += 1
            totalBytes = totalBytes.addingReportingOverflow(status.size).overflow ? .max : totalBytes + status.size
        }
        var report = ScrubReport(root: realRoot, started: Date(), finished: Date(), files: 0, bytes: 0, matched: 0,
                                 recorded: 0, findings: [])
        let store = DigestStore(algorithms: algorithms)
        let pacer = Pacer(rate: rate)
        Self.walk(folder, "") { dir, name, relative, _ in
            let (filesBefore, bytesBefore) = (report.files, report.bytes)
            check(dir, name, relative, store: store, pacer: pacer, into: &report) { bytes in
                progress(Progress(files: filesBefore, bytes: bytesBefore + bytes, totalFiles: totalFiles,
                                  totalBytes: totalBytes, path: relative))
            }
            report.files += 1
            progress(Progress(files: report.files, bytes: report.bytes, totalFiles: totalFiles, totalBytes: totalBytes,
                              path: relative))
        }
        report.finished = Date()
        try? report.save()
        return report
    }

    /// Checks one file and adds what it found to `report`.
    private func check(_ dir: FileDescriptor, _ name: String, _ relative: String, store: DigestStore, pacer: Pacer,
                       into report: inout ScrubReport, reading: (Int64) -> Void) {
        let file: FileDescriptor
        do {
            file = try FileDescriptor.open(name, .readOnly, options: [.noFollow, .nonBlocking], in: dir, label: relative)
        } catch {
            report.findings.append(.init(path: relative, kind: .unreadable, detail: "\(error)"))
            return
        }
        defer { file.close() }
        guard let before = try? file.status(path: relative), before.isRegular else { return }
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
        let found = recorder.finish(for: stat)
        if let known {
            if found.sha256 == known.sha256 {
                report.matched += 1
            } else {
                report.findings.append(.init(path: relative, kind: .mismatch,
                                             detail: "recorded sha256 \(known.sha256.hexString), read \(found.sha256.hexString)"))
            }
            return
        }
        var detail = "no digest record"
        if record && store.save(found, fd: file, path: relative) {
            report.recorded += 1
            detail += "; recorded sha256 \(found.sha256.hexString)"
        }
        report.findings.append(.init(path: relative, kind: .unrecorded, detail: detail))
    }

    /// Calls `visit` with every regular file below the open folder `folder` (sorted by name, depth first):
    /// its folder, name, path below the root and status. Links are never followed; hidden server files and
    /// anything that is neither file nor folder are left out; unreadable folders are skipped.
    static func walk(_ folder: FileDescriptor, _ prefix: String,
                     _ visit: (FileDescriptor, String, String, FileStatus) -> Void) {
        guard let entries = try? folder.entries(path: prefix) else { return }
        for entry in entries.sorted(by: { $0.name < $1.name }) where !entry.name.hasPrefix(PathResolver.hiddenPrefix) {
            guard let status = try? FileStatus(entry.name, in: folder, followLinks: false) else { continue }
            let relative = prefix.isEmpty ? entry.name : prefix + "/" + entry.name
            if status.isRegular {
                visit(folder, entry.name, relative, status)
            } else if status.isDirectory,
                      let child = try? FileDescriptor.open(entry.name, .readOnly, options: [.directory, .noFollow], in: folder) {
                walk(child, relative, visit)
                child.close()
            }
        }
    }
}

/// Keeps reading at or under a byte rate: after each chunk, sleeps until the bytes so far are due.
final class Pacer: @unchecked Sendable {
    // @unchecked: used by one scrub on one thread; Sendable only so StoreScrub's methods can hold one.
    private let rate: Int64?
    private let start = Date()
    private var bytes: Int64 = 0

    init(rate: Int64?) { self.rate = rate }

    func pace(_ count: Int) {
        guard let rate, rate > 0 else { return }
        bytes += Int64(count)
        let due = Double(bytes) / Double(rate)
        let ahead = due - Date().timeIntervalSince(start)
        if ahead > 0.001 { Thread.sleep(forTimeInterval: ahead) }
    }
}
