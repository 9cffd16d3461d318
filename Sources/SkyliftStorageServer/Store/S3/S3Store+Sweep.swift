import Foundation
import SkyliftS3

extension S3Store {
    /// How often a running multipart write writes its state object again: a write idle for several of these has
    /// stopped (its instance crashed or was killed), whatever its size.
    public static let uploadHeartbeat = Duration.seconds(300)

    /// Aborts the multipart writes of any instance whose state object was last written more than `seconds` ago,
    /// and removes what they left (the multipart upload, the staging object, the state object); returns them.
    /// A running write rewrites its state object every ``uploadHeartbeat``, so `seconds` well above that (an
    /// hour) never takes a live write; a resumable write rewrites it on every append, so one idle longer than
    /// `seconds` is abandoned. Also removes staging and tail objects older than `seconds` that no state object
    /// names (a crash between completing a staging object and removing it).
    @discardableResult
    public func sweepAbandonedUploads(idleFor seconds: Double, now: Date = Date()) async throws -> [S3StoreUpload] {
        let cutoff = now.addingTimeInterval(-seconds)
        var swept: [S3StoreUpload] = []
        var recorded: Set<String> = []
        for summary in try await keys(under: systemKey("uploads/"), operation: "sweep", path: "") {
            guard let bytes = try await systemObject(summary.key, operation: "sweep"),
                  let upload = try? JSONDecoder().decode(S3StoreUpload.self, from: Data(bytes.bytes)) else { continue }
            recorded.insert(upload.stagingKey)
            recorded.insert(systemKey("tails/" + upload.id))
            guard let written = summary.lastModified, written < cutoff else { continue }
            await abort(upload)
            swept.append(upload)
        }
        let leftovers = try await keys(under: systemKey("staging/"), operation: "sweep", path: "")
            + keys(under: systemKey("tails/"), operation: "sweep", path: "")
        for summary in leftovers where !recorded.contains(summary.key) && (summary.lastModified.map { $0 < cutoff } ?? false) {
            try await remove(key: summary.key, operation: "sweep", path: "")
        }
        return swept
    }
}
