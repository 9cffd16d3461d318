#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// The steps a store needs to replace a whole entry without a moment where neither the old nor the new one
// is there: swapping two names in one call, and knowing the free space before accepting bytes.
extension FileDescriptor {
    /// Swaps the entries `name` in this open folder and `otherName` in `other` in one step (Linux
    /// `renameat2(RENAME_EXCHANGE)`, Darwin `renameatx_np(RENAME_SWAP)`): both must exist; either may be a
    /// file or a folder. A reader sees one or the other under each name, never nothing.
    public func exchange(_ name: String, with otherName: String, in other: FileDescriptor, path: String) throws(FileError) {
        guard systemExchange(rawValue, name, other.rawValue, otherName) == 0 else { throw FileError.last("renameat2", path) }
    }

    /// Renames `name` in this open folder to `newName` in `folder`, replacing what `newName` names when the
    /// kernel allows (a file over a file, a folder over an empty folder).
    public func rename(_ name: String, to newName: String, in folder: FileDescriptor, path: String) throws(FileError) {
        guard renameat(rawValue, name, folder.rawValue, newName) == 0 else { throw FileError.last("renameat", path) }
    }

    /// Bytes an unprivileged writer may still put on this descriptor's file system (`fstatvfs`: blocks
    /// available to non-root times the fragment size); nil when the file system does not say.
    public func availableSpace() -> Int64? {
        var info = statvfs()
        guard fstatvfs(rawValue, &info) == 0 else { return nil }
        let (bytes, overflow) = Int64(clamping: info.f_bavail).multipliedReportingOverflow(by: Int64(clamping: info.f_frsize))
        return overflow ? Int64.max : bytes
    }

    /// The size of this descriptor's file system in bytes; nil when it does not say.
    public func fileSystemSize() -> Int64? {
        var info = statvfs()
        guard fstatvfs(rawValue, &info) == 0 else { return nil }
        let (bytes, overflow) = Int64(clamping: info.f_blocks).multipliedReportingOverflow(by: Int64(clamping: info.f_frsize))
        return overflow ? Int64.max : bytes
    }
}
