/// One check of a regular file: the (size, mtime, inode) triple the settle logic compares.
public struct FileSnapshot: Sendable, Hashable, Codable {
    /// Path relative to the watched root, `/`-separated, without a leading slash.
    public var path: String
    /// Size in bytes.
    public var size: Int64
    /// Modification time in nanoseconds since 1970.
    public var mtimeNanoseconds: Int64
    /// Inode number; a replaced file (atomic save) gets a new one even when size and mtime agree.
    public var inode: UInt64

    public init(path: String, size: Int64, mtimeNanoseconds: Int64, inode: UInt64) {
        self.path = path
        self.size = size
        self.mtimeNanoseconds = mtimeNanoseconds
        self.inode = inode
    }

    /// Whether two checks describe the same content state, whatever the path.
    public func agrees(with other: FileSnapshot) -> Bool {
        size == other.size && mtimeNanoseconds == other.mtimeNanoseconds && inode == other.inode
    }
}
