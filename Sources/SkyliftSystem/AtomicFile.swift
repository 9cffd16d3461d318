#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one way Skylift replaces a state file (resume records, S3 state, tus info, cache maps, dead
/// properties, the token file).
///
/// **Durability.** The new content goes to a temp file in the same folder, created with `O_CREAT|O_EXCL`
/// and its final mode (so no other user can open it and no link planted at its name is followed), written
/// whole and flushed with `fsync`; then it is renamed over the target and the folder is flushed with `fsync`.
/// After a crash or power cut at any point a reader finds the old content or the new, never a mix, and once
/// the call returns the new content survives a power cut. Missing parent folders are created 0700.
public enum AtomicFile {
    /// Replaces `path` with `bytes`.
    ///
    /// `temporary` names the temp file (a path in the same folder) for callers whose folder has naming
    /// rules; a leftover of that name from a crash is removed first. By default the name is fresh and random.
    public static func replace(_ path: String, with bytes: [UInt8], permissions: mode_t = PrivateFiles.fileMode,
                               temporary: String? = nil) throws(FileError) {
        if let temporary { Directory.remove(temporary) }
        let temp = try writeTemp(for: path, bytes, permissions: permissions, name: temporary)
        do {
            try Directory.rename(temp, to: path)
        } catch {
            Directory.remove(temp)
            throw error
        }
        Directory.sync(folder(of: path))
    }

    /// Creates `path` holding `bytes` unless it exists; returns false (and changes nothing) when it does.
    /// The file appears complete or not at all (a hard link from the flushed temp file), so a concurrent
    /// reader never sees it empty, and of two concurrent creators exactly one wins.
    public static func createNew(_ path: String, with bytes: [UInt8],
                                 permissions: mode_t = PrivateFiles.fileMode) throws(FileError) -> Bool {
        let temp = try writeTemp(for: path, bytes, permissions: permissions, name: nil)
        defer { Directory.remove(temp) }
        guard link(temp, path) == 0 else {
            if errno == EEXIST { return false }
            throw FileError.last("link", path)
        }
        Directory.sync(folder(of: path))
        return true
    }

    /// Writes `bytes` to a new file next to `path` and flushes it; returns its path.
    private static func writeTemp(for path: String, _ bytes: [UInt8], permissions: mode_t,
                                  name: String?) throws(FileError) -> String {
        let folder = folder(of: path)
        try PrivateFiles.createDirectory(folder)
        let base = path.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? path
        let temp = name ?? folder + "/.\(base).\(UInt64.random(in: 0 ... .max)).tmp"
        let fd = try FileDescriptor.open(temp, .writeOnly, options: [.create, .exclusive], permissions: permissions)
        do {
            try bytes.withUnsafeBytes { raw in Result { () throws(FileError) in try fd.writeAll(raw, path: temp) } }.get()
            try fd.sync(path: temp)
        } catch {
            fd.close()
            Directory.remove(temp)
            throw error
        }
        fd.close()
        return temp
    }

    /// The folder holding `path` ("." for a bare name).
    static func folder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}
