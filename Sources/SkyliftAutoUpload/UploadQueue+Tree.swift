import SkyliftFolderWatch

// Following the folder tree: removals, moves, and full listings.
extension UploadQueue {
    /// Forgets `path` and, for a folder, every row under it. Returns the removed rows.
    @discardableResult
    public func remove(_ path: String) async throws(AutoUploadError) -> [QueuedFile] {
        try await writing { c in
            let prefix = path + "/"
            let rows = try c.query("SELECT \(Self.columns) FROM files WHERE path = ? OR substr(path, 1, ?) = ?",
                                   [.text(path), .integer(Int64(prefix.utf8.count)), .text(prefix)]).map(Self.decode)
            try c.execute("DELETE FROM files WHERE path = ? OR substr(path, 1, ?) = ?",
                          [.text(path), .integer(Int64(prefix.utf8.count)), .text(prefix)])
            return rows
        }
    }

    /// Follows a move inside the folder: rows under `from` are now under `to`. Copies already uploaded keep
    /// their remote names (`remotePath`) until `adoptRemoteNames(under:)` says they moved too; files not
    /// uploaded yet will be uploaded under their new names. A row already at a target path is replaced.
    /// Returns the moved rows as they were before the move.
    @discardableResult
    public func move(_ from: String, to: String) async throws(AutoUploadError) -> [QueuedFile] {
        try await writing { c in
            let prefix = from + "/"
            let rows = try c.query("SELECT \(Self.columns) FROM files WHERE path = ? OR substr(path, 1, ?) = ?",
                                   [.text(from), .integer(Int64(prefix.utf8.count)), .text(prefix)]).map(Self.decode)
            for row in rows {
                let new = to + row.path.dropFirst(from.count)
                try c.execute("DELETE FROM files WHERE path = ?", [.text(new)])
                try c.execute("""
                    UPDATE files SET path = ?, remote_path = CASE WHEN state = \(UploadState.done.sql) THEN remote_path ELSE ? END, updated = ?
                    WHERE path = ?
                    """, [.text(new), .text(new), .real(Self.now()), .text(row.path)])
            }
            return rows
        }
    }

    /// The remote copies of the rows at or under `path` were moved to the rows' own names.
    public func adoptRemoteNames(under path: String) async throws(AutoUploadError) {
        try await writing { c in
            let prefix = path + "/"
            try c.execute("UPDATE files SET remote_path = path, updated = ? WHERE path = ? OR substr(path, 1, ?) = ?",
                          [.real(Self.now()), .text(path), .integer(Int64(prefix.utf8.count)), .text(prefix)])
        }
    }

    /// Compares a full listing with the rows. Returns the paths that are new or changed (to be settled and
    /// queued) and the rows whose files are gone (removed from the queue). Folders that could not be listed
    /// are left alone.
    public func reconcile(_ scan: FolderScan) async throws(AutoUploadError) -> (changed: [String], gone: [QueuedFile]) {
        try await writing { c in
            var known: [String: QueuedFile] = [:]
            for row in try c.query("SELECT \(Self.columns) FROM files").map(Self.decode) { known[row.path] = row }
            var changed: [String] = []
            for file in scan.files {
                guard let row = known.removeValue(forKey: file.path) else {
                    changed.append(file.path)
                    continue
                }
                if !row.snapshot.agrees(with: file) { changed.append(file.path) }
            }
            let gone = known.values.filter { !scan.isUnknown($0.path) }.sorted { $0.path < $1.path }
            for row in gone { try c.execute("DELETE FROM files WHERE path = ?", [.text(row.path)]) }
            return (changed.sorted(), gone)
        }
    }
}
