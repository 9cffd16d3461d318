#if os(Linux)
import Glibc

// What differs on Linux: the libc module's name (the wrappers' method names shadow its functions, so the
// originals are reached through it), stat's time field, fdatasync, and hole punching.

func systemClose(_ fd: Int32) -> Int32 { Glibc.close(fd) }
func systemRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int { Glibc.read(fd, buffer, count) }
func systemWrite(_ fd: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int { Glibc.write(fd, buffer, count) }
func systemRename(_ from: String, _ to: String) -> Int32 { Glibc.rename(from, to) }
func dataSync(_ fd: Int32) -> Int32 { fdatasync(fd) }

extension stat {
    var modificationTime: timespec { st_mtim }
}

/// Frees the disk blocks of a range, keeping the length (`fallocate` with PUNCH_HOLE | KEEP_SIZE).
/// Returns false where the kernel or file system cannot.
func punchHole(_ fd: Int32, offset: Int64, length: Int64) -> Bool {
    // FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE; the values are fixed by the Linux ABI.
    linuxFallocate?(fd, 0x02 | 0x01, off_t(offset), off_t(length)) == 0
}

/// glibc's `fallocate`, which the Glibc module does not export (it is a `_GNU_SOURCE` declaration).
/// Looked up once; nil means holes are not punched.
private let linuxFallocate: (@convention(c) (Int32, Int32, off_t, off_t) -> Int32)? = {
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "fallocate") else { return nil }
    return unsafeBitCast(symbol, to: (@convention(c) (Int32, Int32, off_t, off_t) -> Int32).self)
}()
#endif
