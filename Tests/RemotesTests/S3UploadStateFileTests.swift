import Foundation
@testable import Remotes
import Testing

/// The multipart upload id lets anyone with credentials for the bucket finish the upload: its state file is
/// created 0600 in folders created 0700 (issue 10, item 6).
@Suite struct S3UploadStateFileTests {
    @Test func stateIsPrivateFromCreation() throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("s3state-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: base) }
        let file = S3UploadStateFile(directory: base.appendingPathComponent("state"), bucket: "media", key: "a/b.mp4")
        let state = S3UploadState(bucket: "media", key: "a/b.mp4", uploadId: "up-1", length: 10, identity: "id", partSize: 5 << 20)
        try file.save(state)
        try file.save(state)
        #expect(try file.load() == state)
        let mode = { (path: String) in try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int }
        #expect(try mode(base.path) == 0o700)
        #expect(try mode(base.appendingPathComponent("state").path) == 0o700)
        #expect(try mode(file.url.path) == 0o600)
        #expect(try FileManager.default.contentsOfDirectory(atPath: base.appendingPathComponent("state").path) == [file.url.lastPathComponent])
    }
}
