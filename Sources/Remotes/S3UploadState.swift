import Foundation
import Hashing
import SkyliftCore
import SkyliftSystem

/// What a resumed multipart upload needs to find its parts again.
struct S3UploadState: Codable, Equatable {
    var bucket: String
    var key: String
    var uploadId: String
    var length: Int64
    /// `BlobIdentity.value` of the content when the upload began.
    var identity: String
    var partSize: Int64
}

/// The state file of one bucket/key, written atomically so a crash leaves the old or the new version.
struct S3UploadStateFile {
    let url: URL

    init(directory: URL, bucket: String, key: String) {
        let name = Digest.hash(.sha256, Array("\(bucket)\n\(key)".utf8)).hexString.prefix(32)
        url = directory.appendingPathComponent("s3-upload-\(name).json")
    }

    func load() throws -> S3UploadState? {
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        do {
            return try JSONDecoder().decode(S3UploadState.self, from: Data(contentsOf: url))
        } catch {
            throw S3Error.state(path: url.path, reason: "unreadable (\(error)); delete it to start the upload over")
        }
    }

    func save(_ state: S3UploadState) throws {
        do {
            // 0600 in 0700 folders: the upload id lets whoever holds credentials for the bucket finish the upload.
            try AtomicFile.replace(url.path, with: Array(try JSONEncoder().encode(state)))
        } catch {
            throw S3Error.state(path: url.path, reason: "cannot write: \(error.localizedDescription)")
        }
    }

    func remove() throws {
        guard FileManager.default.fileExists(atPath: url.path) else { return }
        do { try FileManager.default.removeItem(at: url) } catch {
            throw S3Error.state(path: url.path, reason: "cannot remove: \(error.localizedDescription)")
        }
    }
}
