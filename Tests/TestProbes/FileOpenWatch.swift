import Foundation
#if canImport(Glibc)
import Glibc
#endif

#if os(Linux)
/// Watches one file with inotify for any open or read.
public final class FileOpenWatch: Sendable {
    private let fd: Int32

    public init(_ path: String) throws {
        fd = inotify_init1(Int32(IN_NONBLOCK))
        guard fd >= 0, inotify_add_watch(fd, path, UInt32(IN_OPEN | IN_ACCESS)) >= 0 else { throw POSIXError(.EBADF) }
    }

    /// True when the file was opened or read since the watch began.
    public var touched: Bool {
        var buffer = [UInt8](repeating: 0, count: 4096)
        return read(fd, &buffer, buffer.count) > 0
    }

    deinit { close(fd) }
}
#endif
