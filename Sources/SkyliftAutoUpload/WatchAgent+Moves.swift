import SkyliftFolderWatch

/// Following moves inside the watched folder: the remote copies move too, so the remote tree keeps mirroring
/// the folder and nothing is sent again.
extension WatchAgent {
    /// A file or folder moved inside the tree: its uploaded copies move on the remote too, so the remote keeps
    /// mirroring the folder and nothing is sent again. When the remote cannot move, they keep their old names
    /// (the queue records where they are). Returns whether anything moved on the remote.
    func followMove(_ from: String, to: String) async throws -> Bool {
        let rows = try await queue.move(from, to: to)
        let uploaded = rows.filter { $0.state == .done }
        guard !uploaded.isEmpty else { return false }
        do {
            if uploaded.allSatisfy({ $0.remotePath == $0.path }) {
                // The remote mirrors this part of the tree: one move takes a folder with everything in it.
                try await uploader.move(from, to: to)
            } else {
                for row in uploaded {
                    try await uploader.move(row.remotePath, to: to + row.path.dropFirst(from.count))
                }
            }
        } catch {
            if case let .refused(url, status) = error { fail(.authenticationRefused(url: url, status: status)) }
            continuation.yield(.notice("could not move the remote copy of '\(from)' to '\(to)', it keeps its name: \(error.description)"))
            return false
        }
        try await queue.adoptRemoteNames(under: to)
        return true
    }

    /// The file moved while it was being sent, so its copy went up under the old name: that copy follows it
    /// now. Returns the row, done, or nil when there is nothing to follow (the file changed instead) or the
    /// remote copy could not be moved (then it is uploaded again under the new name).
    func followMoveDuringUpload(_ file: QueuedFile) async throws -> QueuedFile? {
        guard try await queue.file(file.path) == nil, var row = try await queue.uploading(file.snapshot) else { return nil }
        do {
            try await uploader.move(file.remotePath, to: row.path)
        } catch {
            continuation.yield(.notice("could not move the remote copy of '\(file.path)' to '\(row.path)': \(error.description)"))
            try await queue.release(row.path)
            signal.notifyAll()
            return nil
        }
        row.remotePath = row.path
        try await queue.markDone(row)
        return row
    }

    /// The claimed file is not at its path. Vanished between its report and its upload: it leaves the queue
    /// without a fuss. Moved (its row followed it): it waits again under the new path.
    func dropOrFollow(_ claimed: QueuedFile) async throws {
        if try await queue.file(claimed.path) == nil, let moved = try await queue.uploading(claimed.snapshot) {
            try await queue.release(moved.path)
            signal.notifyAll()
            return
        }
        try await queue.remove(claimed.path)
        continuation.yield(.dropped(path: claimed.path))
    }
}
