#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension FileDescriptor {
    /// Sets the open file's modification time (and its access time, to the same instant) with `futimens`:
    /// through the descriptor, so a name swapped for a link meanwhile is never touched.
    public func setModificationTime(seconds: Int64, nanoseconds: Int64 = 0, path: String) throws(FileError) {
        let time = timespec(tv_sec: time_t(seconds), tv_nsec: Int(nanoseconds))
        let times = [time, time]
        guard times.withUnsafeBufferPointer({ futimens(rawValue, $0.baseAddress) }) == 0 else {
            throw FileError.last("futimens", path)
        }
    }
}
