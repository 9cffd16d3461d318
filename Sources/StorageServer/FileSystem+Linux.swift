#if canImport(Glibc)
import Glibc

// The only platform difference FileStat meets: the name of stat's modification-time field.
extension stat {
    var modificationTime: timespec { st_mtim }
}
#elseif canImport(Darwin)
import Darwin

extension stat {
    var modificationTime: timespec { st_mtimespec }
}
#endif
