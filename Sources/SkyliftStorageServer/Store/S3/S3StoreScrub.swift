import Foundation
import SkyliftCore
import SkyliftHashing
import SkyliftS3

/// `skylift scrub` of an ``S3Store``: every file read back from the bucket and compared with the SHA-256 its
/// metadata recorded when it was written (``S3Store/sha256Field``).
///
/// The findings are those of ``StoreScrub`` on a folder. A file whose bytes hash differently from its record is a
/// mismatch. A file without a record is unrecorded and, when `record` is set, is given one now: the object is
/// copied onto itself on the service with the record added to its metadata, only while it is still the object
/// that was read (`x-amz-copy-source-if-match`). A file written again while it was read is `changed`: it is read
/// with `If-Match` on the ETag its HEAD gave. Folder markers and the store's own objects are not files. The
/// report is kept in the bucket (`.skylift/scrub.json` below the prefix) for `skylift status`. The listing is
/// walked a page at a time, so memory does not grow with the bucket (the report's findings do, one per file
/// found wanting).
public struct S3StoreScrub: Sendable {
    public let store: S3Store
    /// Most bytes read per second; nil: as fast as the service answers.
    public let rate: Int64?
    /// Whether files without a record get one.
    public let record: Bool
    /// Keys per listing page; nil: the service's (1,000).
    var pageSize: Int?

    public init(store: S3Store, rate: Int64? = nil, record: Bool = true) {
        self.store = store
        self.rate = rate
        self.record = record
    }

    /// Runs the scrub, calling `progress` after each file and about every 64 MiB, and saves the report in the
    /// bucket. Throws only when the files cannot be listed.
    public func run(progress: (StoreScrub.Progress) -> Void = { _ in }) async throws -> ScrubReport {
        // Two passes over the listing, a page at a time, so a bucket of any size is scrubbed in bounded memory:
        // one to count for the progress line, one to read.
        var totalFiles = 0, totalBytes: Int64 = 0
        try await store.forEachFilePage(pageSize: pageSize) { page in
            totalFiles += page.count
            for object in page { totalBytes = totalBytes.addingReportingOverflow(object.size).overflow ? .max : totalBytes + object.size }
        }
        var report = ScrubReport(root: store.location, started: Date(), finished: Date(), files: 0, bytes: 0, matched: 0,
                                 recorded: 0, findings: [])
        let pacer = Pacer(rate: rate)
        try await store.forEachFilePage(pageSize: pageSize) { page in
            for object in page {
                let path = store.path(ofKey: object.key)
                let (filesBefore, bytesBefore) = (report.files, report.bytes)
                await check(object.key, path: path, pacer: pacer, into: &report) { bytes in
                    progress(StoreScrub.Progress(files: filesBefore, bytes: bytesBefore + bytes, totalFiles: totalFiles,
                                                 totalBytes: totalBytes, path: path))
                }
                progress(StoreScrub.Progress(files: report.files, bytes: report.bytes, totalFiles: max(totalFiles, report.files),
                                             totalBytes: totalBytes, path: path))
            }
        }
        report.finished = Date()
        try? await store.saveScrubReport(report)
        return report
    }

    /// Reads one object through and adds what it found to `report`. An object deleted since the listing is
    /// not counted.
    private func check(_ key: String, path: String, pacer: Pacer, into report: inout ScrubReport,
                       reading: (Int64) -> Void) async {
        let client = store.client, bucket = store.bucket
        let head: S3ObjectHead
        do { head = try await client.headObjectMetadata(bucket: bucket, key: key) } catch let error as S3Error where error.status == 404 {
            return
        } catch {
            report.files += 1
            report.findings.append(.init(path: path, kind: .unreadable, detail: "\(error)"))
            return
        }
        report.files += 1
        var digest = Digest(.sha256)
        var count: Int64 = 0, reported: Int64 = 0
        do {
            let response = try await client.getObject(bucket: bucket, key: key, ifMatch: head.info.etag)
            for try await chunk in response.body {
                digest.update(chunk)
                count += Int64(chunk.count)
                await pacer.paceTask(chunk.count)
                if count - reported >= 64 << 20 { reading(count); reported = count }
            }
        } catch let error as S3Error where error.status == 412 || error.status == 404 {
            report.findings.append(.init(path: path, kind: .changed, detail: "written again while being read"))
            return
        } catch {
            report.findings.append(.init(path: path, kind: .unreadable, detail: "\(error)"))
            return
        }
        report.bytes += count
        let found = digest.finalize()
        let known = S3Store.recordedSHA256(in: head.metadata)
        if let known {
            report.compare(found, withRecorded: known, path: path)
            return
        }
        var detail = "no digest record"
        if record {
            detail += await recordDigest(found, key: key, head: head, length: count, into: &report)
        }
        report.findings.append(.init(path: path, kind: .unrecorded, detail: detail))
    }

    /// Adds `sha256` to the object's metadata while it is the object read; what to add to the finding's detail.
    private func recordDigest(_ sha256: [UInt8], key: String, head: S3ObjectHead, length: Int64,
                              into report: inout ScrubReport) async -> String {
        var metadata = head.metadata
        metadata[S3Store.sha256Field] = sha256.hexString
        do {
            try await store.client.copyObject(bucket: store.bucket, from: key, to: key, size: head.info.length ?? length,
                                              metadata: metadata, contentType: head.info.contentType, sourceIfMatch: head.info.etag)
            report.recorded += 1
            return "; recorded sha256 \(sha256.hexString)"
        } catch let error as S3Error where error.status == 412 {
            return "; not recorded: written again meanwhile"
        } catch {
            return "; not recorded: \(error)"
        }
    }
}

extension S3Store {
    /// `s3://bucket/prefix`, as reports and messages name the store.
    public var location: String { "s3://\(bucket)/\(prefix)" }

    /// The largest scrub report read back (one finding per file, so a very large store's can be long).
    static let maxReportBytes = 64 << 20

    /// Calls `body` with each page of the store's file objects (no folder marker, nothing of the store's own).
    func forEachFilePage(pageSize: Int? = nil, _ body: ([S3ObjectSummary]) async throws -> Void) async throws {
        let system = systemKey("")
        var token: String?
        repeat {
            let page: (objects: [S3ObjectSummary], commonPrefixes: [String], next: String?)
            do { page = try await client.listObjectsPage(bucket: bucket, prefix: prefix, after: token, maxKeys: pageSize) } catch {
                throw S3StoreError.wrapping(error, operation: "scrub", path: "")
            }
            try await body(page.objects.filter { !$0.key.hasSuffix("/") && !$0.key.hasPrefix(system) })
            token = page.next
        } while token != nil
    }

    /// Keeps `report` as the store's last scrub, replacing the one before.
    func saveScrubReport(_ report: ScrubReport) async throws {
        let bytes = Array(try ScrubReport.encoder.encode(report))
        do {
            try await client.putObject(bucket: bucket, key: systemKey("scrub.json"), body: .bytes(bytes), sha256: Digest.hash(.sha256, bytes),
                                       contentType: "application/json", metadata: [:], condition: .always)
        } catch {
            throw S3StoreError.wrapping(error, operation: "scrub", path: "")
        }
    }

    /// The last scrub's report kept in the bucket; nil when the store was never scrubbed.
    public func lastScrubReport() async throws -> ScrubReport? {
        let bytes: [UInt8]
        do {
            bytes = try await client.getObject(bucket: bucket, key: systemKey("scrub.json")).collect(upTo: Self.maxReportBytes)
        } catch let error as S3Error where error.status == 404 {
            return nil
        } catch {
            throw S3StoreError.wrapping(error, operation: "status", path: "")
        }
        do {
            return try ScrubReport.decoder.decode(ScrubReport.self, from: Data(bytes))
        } catch {
            throw S3StoreError(operation: "status", path: "", reason: .invalidResponse("the scrub report does not parse"))
        }
    }
}
