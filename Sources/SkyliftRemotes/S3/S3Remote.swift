import Foundation
import SkyliftHTTPClient
import SkyliftCore
import SkyliftS3

/// An S3 bucket and key prefix (`s3://bucket/prefix/`) as a `Remote`: names are keys below the prefix,
/// writes are multipart uploads whose UploadId is the resume token.
///
/// Errors come out as `RemoteError` so upload engines treat S3 like tus and WebDAV: a vanished multipart
/// upload is `uploadGone` (start over), broken connections are `network`, and service errors keep their
/// HTTP status with the S3 error code and explanation in the detail.
public struct S3Remote: Remote {
    public var kind: RemoteKind { .s3 }
    public let client: S3Client
    public let location: S3Location
    /// Part size asked for (`--part-size`); nil picks 8 MiB. Raised where 10,000 parts would not cover an object.
    public var partLength: Int64?

    public init(client: S3Client, location: S3Location, partLength: Int64? = nil) {
        self.client = client
        self.location = location
        self.partLength = partLength
    }

    /// The remote for an `s3://bucket/prefix/` destination, with endpoint, region and credentials resolved the
    /// way the AWS CLI resolves them (see `S3Configuration.resolve`); `endpoint` is `--s3-endpoint`.
    public static func resolve(_ location: String, endpoint: URL? = nil, addressing: S3Configuration.Addressing = .auto,
                               transport: any HTTPTransport,
                               environment: [String: String] = ProcessInfo.processInfo.environment,
                               home: URL = FileManager.default.homeDirectoryForCurrentUser) throws -> S3Remote {
        let parsed = try S3Location(parsing: location)
        let configuration = try S3Configuration.resolve(environment: environment, home: home, endpoint: endpoint, addressing: addressing)
        return S3Remote(client: S3Client(configuration: configuration, transport: transport), location: parsed)
    }

    public var folderURL: URL { Self.url(bucket: location.bucket, key: location.prefix) }

    public var capabilities: RemoteCapabilities {
        RemoteCapabilities(resumable: true, readable: true, maxSize: 5 << 40)
    }

    /// The key of `name` (a path relative to the prefix).
    public func key(_ name: String) -> String { location.key(for: name) }

    public func stat(_ name: String) async throws -> RemoteObject? {
        do {
            let (info, sha256) = try await client.statObject(bucket: location.bucket, key: key(name))
            return RemoteObject(name: name, url: url(name), info: info, sha256: sha256)
        } catch let error as S3Error where error.status == 404 {
            return nil
        } catch {
            throw remoteError(error, method: "HEAD", name: name)
        }
    }

    public func read(_ name: String, range: ByteRange?) async throws -> HTTPClientResponse {
        try await read(name, range: range, ifMatch: nil)
    }

    /// `read`, only while the object still has ETag `ifMatch`: a changed object fails with status 412
    /// instead of mixing bytes of two versions.
    public func read(_ name: String, range: ByteRange?, ifMatch: String?) async throws -> HTTPClientResponse {
        do {
            return try await client.getObject(bucket: location.bucket, key: key(name), range: range, ifMatch: ifMatch)
        } catch {
            throw remoteError(error, method: "GET", name: name)
        }
    }

    public func list(_ prefix: String) async throws -> [RemoteObject] {
        let base = prefix.isEmpty ? location.prefix : key(prefix.hasSuffix("/") ? prefix : prefix + "/")
        let listing: (objects: [S3ObjectSummary], commonPrefixes: [String])
        do {
            listing = try await client.listObjects(bucket: location.bucket, prefix: base, delimiter: "/")
        } catch {
            throw remoteError(error, method: "GET", name: prefix)
        }
        let strip = location.prefix.count
        let files = listing.objects.filter { $0.key != base }.map { object in
            let name = String(object.key.dropFirst(strip))
            return RemoteObject(name: name, url: url(name),
                                info: ContentInfo(length: object.size, etag: object.etag, lastModified: object.lastModified))
        }
        let folders = listing.commonPrefixes.map { common in
            let name = String(common.dropFirst(strip).dropLast())
            return RemoteObject(name: name, url: url(name + "/"), info: ContentInfo(), isFolder: true)
        }
        return folders + files
    }

    public func delete(_ name: String) async throws {
        do {
            try await client.deleteObject(bucket: location.bucket, key: key(name))
        } catch let error as S3Error where error.status == 404 {
        } catch {
            throw remoteError(error, method: "DELETE", name: name)
        }
    }

    /// Objects up to this size go up in one PUT; larger ones as multipart uploads that resume part by part.
    public static let singlePutLimit: Int64 = 8 << 20

    public func startWrite(_ name: String, length: Int64) async throws -> any RemoteWrite {
        if length <= Self.singlePutLimit { return S3PutWrite(remote: self, name: name) }
        do {
            let id = try await client.createMultipartUpload(bucket: location.bucket, key: key(name),
                                                            contentType: MediaType.forPath(name))
            return S3Write(remote: self, name: name, length: length, uploadId: id)
        } catch {
            throw remoteError(error, method: "POST", name: name)
        }
    }

    public func resumeWrite(_ name: String, length: Int64, token: String) async throws -> (any RemoteWrite)? {
        if token == S3PutWrite.token { return nil }
        let write = S3Write(remote: self, name: name, length: length, uploadId: token)
        do {
            _ = try await write.confirmedOffset()
            return write
        } catch RemoteError.uploadGone {
            return nil
        }
    }

    /// `s3://bucket/key`, percent-encoded.
    func url(_ name: String) -> URL { Self.url(bucket: location.bucket, key: key(name)) }

    public static func url(bucket: String, key: String) -> URL {
        // Built from encoded parts only, so it always parses.
        URL(string: "s3://\(bucket)/\(S3Signer.encode(key, keepSlash: true))")!
    }

    /// The `RemoteError` for a failed S3 call on `name` (S3 and transport errors classified for retries).
    public func remoteError(_ error: any Error, method: String, name: String) -> any Error {
        let url = url(name)
        switch error {
        case let error as S3Error:
            switch error {
            case let .service(status, code, _, _):
                if code == "NoSuchUpload" { return RemoteError.uploadGone(url: url) }
                if error.isDamagedBody { return RemoteError.checksumMismatch(url: url) }
                // Throttling and timeouts are worth another attempt whatever status carries them.
                if error.isTransient && status < 500 { return RemoteError.status(503, method: method, url: url, detail: error.description) }
                return RemoteError.status(status, method: method, url: url, detail: error.description)
            case let .invalidResponse(_, reason):
                return RemoteError.protocolViolation(url: url, reason: reason)
            case .configuration, .state:
                return error
            }
        case let error as HTTPClientError:
            switch error {
            case .cancelled: return CancellationError()
            default: return RemoteError.network(url: url, reason: error.description)
            }
        default:
            return error
        }
    }
}
