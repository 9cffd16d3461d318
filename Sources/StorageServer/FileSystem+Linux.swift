#if canImport(Glibc)
import Glibc

// The platform differences the server meets: the name of stat's modification-time field, and reading a
// folder's names from a descriptor (`dirent.d_name` is a fixed C array imported as a tuple).
extension stat {
    var modificationTime: timespec { st_mtim }
}
#elseif canImport(Darwin)
import Darwin

extension stat {
    var modificationTime: timespec { st_mtimespec }
}
#endif

extension FileSystem {
    /// The names in the open folder `folder` ("." and ".." left out); nil when it cannot be read.
    /// Reads through a descriptor of its own, so `folder`'s offset is untouched and it stays open.
    static func names(in folder: Int32) -> [String]? {
        let fd = openat(folder, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        guard let dir = fdopendir(fd) else { close(fd); return nil }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafePointer(to: &entry.pointee.d_name) {
                String(cString: UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self))
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// The text of the symlink `name` in the open folder `folder`; nil when it is not a link or unreadable.
    static func readLink(at folder: Int32, _ name: String) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = readlinkat(folder, name, &buffer, buffer.count - 1)
        guard n > 0, n < buffer.count - 1 else { return nil }
        return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
