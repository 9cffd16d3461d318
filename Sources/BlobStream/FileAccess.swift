/// What a file looked like at one moment: enough to tell one version of it from another.
struct FileStatus: Equatable, Sendable {
    var device: UInt64
    var inode: UInt64
    var size: Int64
    var modifiedSeconds: Int64
    var modifiedNanoseconds: Int64
    var isDirectory: Bool
    var isRegular: Bool
}

/// The few system calls ``FileSource`` needs, kept behind a protocol so the portable core imports no libc.
/// Failures carry the errno value.
protocol FileAccess: Sendable {
    func openForReading(_ path: String) -> Result<Int32, FileAccessFailure>
    func status(_ descriptor: Int32) -> Result<FileStatus, FileAccessFailure>
    func read(_ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) -> Result<Int, FileAccessFailure>
    func close(_ descriptor: Int32)
}

/// A failed system call: which one and its errno.
struct FileAccessFailure: Error, Equatable {
    var operation: String
    var errno: Int32
}

/// errno values the portable core maps to specific errors, filled in by the platform file.
struct FileErrorCodes: Sendable {
    var notFound: Int32
    var permissionDenied: Int32
    var isDirectory: Int32
    var interrupted: Int32
}
