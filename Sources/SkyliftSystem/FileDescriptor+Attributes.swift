#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// Extended attributes of an open file: small named values that live on the inode, so they follow the file
// through renames and vanish with it.
extension FileDescriptor {
    /// The value of attribute `name`, at most `limit` bytes; nil when the file has no such attribute.
    /// A value longer than `limit` fails with `ERANGE` rather than being cut. A file system without
    /// extended attributes fails with an errno whose ``Errno/isUnsupported`` is true.
    public func attribute(_ name: String, limit: Int, path: String) throws(FileError) -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: max(limit, 1))
        let n = buffer.withUnsafeMutableBytes { systemGetAttribute(rawValue, name, $0.baseAddress, limit) }
        if n < 0 {
            if errno == noAttributeErrno { return nil }
            throw FileError.last("getxattr", path)
        }
        return Array(buffer[0 ..< n])
    }

    /// Sets attribute `name` to `value`, replacing any old value.
    public func setAttribute(_ name: String, _ value: [UInt8], path: String) throws(FileError) {
        let status = value.withUnsafeBytes { systemSetAttribute(rawValue, name, $0.baseAddress, $0.count) }
        guard status == 0 else { throw FileError.last("setxattr", path) }
    }

    /// Removes attribute `name`; a missing one is fine.
    public func removeAttribute(_ name: String, path: String) throws(FileError) {
        guard systemRemoveAttribute(rawValue, name) == 0 || errno == noAttributeErrno else {
            throw FileError.last("removexattr", path)
        }
    }
}

extension Errno {
    /// The file system keeps no extended attributes (or none in this namespace).
    public var isUnsupported: Bool { rawValue == ENOTSUP || rawValue == EOPNOTSUPP }
}
