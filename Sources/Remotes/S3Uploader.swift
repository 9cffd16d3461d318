import BlobStream
import Foundation
import Hashing
import HTTPClient
import SkyliftCore

/// Uploads a blob to S3: one PUT when it is small, else a multipart upload whose parts go up in parallel
/// and which resumes after a crash.
///
/// Resume: the UploadId is written to a state file in `stateDirectory` before the first part is sent. A later
/// `upload` of the same bucket, key and content (same length and `BlobIdentity`) asks the service which parts
/// it holds (ListParts) and sends only the others. The state file is removed once the upload completes or is
/// cancelled. Unfinished uploads that nobody resumes keep their parts (and their storage cost) until
/// `cancel` or a bucket lifecycle rule (`AbortIncompleteMultipartUpload`) removes them.
///
/// Memory: each of the `jobs` parts in flight streams from its own source through a bounded window; no part
/// is held in memory. Each part is read twice, once for its SHA-256 (sent as `x-amz-checksum-sha256` and
/// checked by the service) and once to send it.
public final class S3Uploader: Sendable {
    public struct Options: Sendable {
        /// Blobs up to this size go up in one PUT.
        public var multipartThreshold: Int64
        /// Smallest part size; S3 requires at least 5 MiB for all parts but the last.
        public var minimumPartSize: Int64
        /// Parts in flight at once.
        public var jobs: Int
        /// Where resume state files live.
        public var stateDirectory: URL

        public init(stateDirectory: URL, multipartThreshold: Int64 = 16 << 20, minimumPartSize: Int64 = 8 << 20, jobs: Int = 4) {
            self.stateDirectory = stateDirectory
            self.multipartThreshold = multipartThreshold
            self.minimumPartSize = max(minimumPartSize, S3Uploader.smallestPartSize)
            self.jobs = max(1, jobs)
        }
    }

    /// What an upload did.
    public struct Result: Sendable, Equatable {
        public var etag: String
        /// Parts sent by this call (0 for a single PUT).
        public var partsSent: Int
        /// Parts an earlier, interrupted call had already stored.
        public var partsReused: Int
    }

    /// S3's lower bound for every part but the last.
    public static let smallestPartSize: Int64 = 5 << 20
    /// S3's upper bound on the number of parts.
    public static let maximumParts: Int64 = 10_000

    public let client: S3Client
    public let options: Options

    public init(client: S3Client, options: Options) {
        self.client = client
        self.options = options
    }

    /// The part size for `length` bytes: at least `minimum` (and 5 MiB), large enough that 10,000 parts cover it,
    /// rounded up to whole MiB.
    public static func partSize(for length: Int64, minimum: Int64) -> Int64 {
        let needed = (length + maximumParts - 1) / maximumParts
        let mib: Int64 = 1 << 20
        return max(minimum, smallestPartSize, (needed + mib - 1) / mib * mib)
    }

    /// Uploads the blob that `makeSource` reads to `bucket`/`key`.
    ///
    /// `makeSource` is called once per concurrent reader and must return a fresh source over the same bytes
    /// each time. `progress` gets the bytes stored so far (parts reused from an earlier attempt included).
    public func upload(bucket: String, key: String, contentType: String? = nil,
                       source makeSource: @escaping @Sendable () -> any BlobSource,
                       progress: (@Sendable (Int64) -> Void)? = nil) async throws -> Result {
        let probe = makeSource()
        let info = try await probe.open()
        probe.close()
        if info.length <= options.multipartThreshold {
            let sha256 = try await BlobDigest.compute(.sha256, of: makeSource())
            let etag = try await client.putObject(bucket: bucket, key: key, body: Self.body(makeSource, offset: 0, length: info.length),
                                                  sha256: sha256, contentType: contentType ?? info.contentType)
            progress?(info.length)
            return Result(etag: etag, partsSent: 0, partsReused: 0)
        }

        let partSize = Self.partSize(for: info.length, minimum: options.minimumPartSize)
        let partCount = Int((info.length + partSize - 1) / partSize)
        let stateFile = S3UploadStateFile(directory: options.stateDirectory, bucket: bucket, key: key)
        var done: [Int: S3Part] = [:]
        var uploadId: String?
        if let state = try stateFile.load() {
            if state.length == info.length && state.identity == info.identity.value && state.partSize == partSize {
                do {
                    for part in try await client.listParts(bucket: bucket, key: key, uploadId: state.uploadId)
                    where (1...partCount).contains(part.number) && part.size == Self.range(of: part.number, partSize: partSize, length: info.length).length {
                        done[part.number] = part
                    }
                    uploadId = state.uploadId
                } catch let error as S3Error where error.code == "NoSuchUpload" {
                    // Expired or aborted elsewhere: start over.
                }
            } else {
                // The content changed since: its parts are useless.
                try? await client.abortMultipartUpload(bucket: bucket, key: key, uploadId: state.uploadId)
            }
            if uploadId == nil { try stateFile.remove() }
        }
        let id: String
        if let uploadId {
            id = uploadId
        } else {
            id = try await client.createMultipartUpload(bucket: bucket, key: key, contentType: contentType ?? info.contentType)
            try stateFile.save(S3UploadState(bucket: bucket, key: key, uploadId: id, length: info.length,
                                              identity: info.identity.value, partSize: partSize))
        }

        let reused = done.count
        let stored = Counter(done.values.reduce(0) { $0 + $1.size })
        progress?(stored.value)
        let missing = (1...partCount).filter { done[$0] == nil }
        try await withThrowingTaskGroup(of: S3Part.self) { group in
            var next = missing.makeIterator()
            func startNext() -> Bool {
                guard let number = next.next() else { return false }
                let range = Self.range(of: number, partSize: partSize, length: info.length)
                group.addTask {
                    let sha256 = try await BlobDigest.compute(.sha256, of: makeSource(), offset: range.offset, length: range.length)
                    let etag = try await self.client.uploadPart(bucket: bucket, key: key, uploadId: id, number: number,
                                                                body: Self.body(makeSource, offset: range.offset, length: range.length),
                                                                sha256: sha256)
                    return S3Part(number: number, etag: etag, size: range.length, checksumSHA256: sha256.base64String)
                }
                return true
            }
            for _ in 0..<options.jobs where !startNext() { break }
            while let part = try await group.next() {
                done[part.number] = part
                progress?(stored.add(part.size))
                _ = startNext()
            }
        }
        let etag = try await client.completeMultipartUpload(bucket: bucket, key: key, uploadId: id,
                                                            parts: (1...partCount).compactMap { done[$0] })
        try stateFile.remove()
        return Result(etag: etag, partsSent: missing.count, partsReused: reused)
    }

    /// Aborts the unfinished multipart upload of `bucket`/`key` recorded in the state directory, if any,
    /// and forgets it. Returns whether there was one.
    @discardableResult
    public func cancel(bucket: String, key: String) async throws -> Bool {
        let stateFile = S3UploadStateFile(directory: options.stateDirectory, bucket: bucket, key: key)
        guard let state = try stateFile.load() else { return false }
        do {
            try await client.abortMultipartUpload(bucket: bucket, key: key, uploadId: state.uploadId)
        } catch let error as S3Error where error.code == "NoSuchUpload" {}
        try stateFile.remove()
        return true
    }

    static func range(of part: Int, partSize: Int64, length: Int64) -> ByteRange {
        let offset = Int64(part - 1) * partSize
        return ByteRange(offset: offset, length: min(partSize, length - offset))
    }

    /// A request body streaming `length` bytes of a fresh source from `offset`.
    static func body(_ makeSource: @escaping @Sendable () -> any BlobSource, offset: Int64, length: Int64) -> HTTPClientRequest.Body {
        .stream(length: length) {
            let stream = BlobInputStream(source: makeSource())
            _ = stream.setProperty(NSNumber(value: offset), forKey: .fileCurrentOffsetKey)
            return stream
        }
    }

    /// Bytes stored so far, shared by the part tasks' completions (which all run in the group's owner).
    private final class Counter: @unchecked Sendable {
        // @unchecked: only touched from the task that owns the task group, one call at a time.
        private(set) var value: Int64
        init(_ value: Int64) { self.value = value }
        func add(_ n: Int64) -> Int64 {
            value += n
            return value
        }
    }
}
