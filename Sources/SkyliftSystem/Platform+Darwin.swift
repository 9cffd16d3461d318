#if canImport(Darwin)
import Darwin

// What differs on Darwin: the libc module's name, stat's time field, no fdatasync, no hole punching.

func systemClose(_ fd: Int32) -> Int32 { Darwin.close(fd) }
func systemRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int { Darwin.read(fd, buffer, count) }
func systemWrite(_ fd: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int { Darwin.write(fd, buffer, count) }
func systemRename(_ from: String, _ to: String) -> Int32 { Darwin.rename(from, to) }
func dataSync(_ fd: Int32) -> Int32 { fsync(fd) }

extension stat {
    var modificationTime: timespec { st_mtimespec }
    var changeTime: timespec { st_ctimespec }
}

func punchHole(_ fd: Int32, offset: Int64, length: Int64) -> Bool { false }
#endif

#if canImport(Darwin)
/// Darwin's xattr calls take a position and options; names carry no namespace there, so `user.` is kept as is.
func systemGetAttribute(_ fd: Int32, _ name: String, _ buffer: UnsafeMutableRawPointer?, _ size: Int) -> Int {
    fgetxattr(fd, name, buffer, size, 0, 0)
}
func systemSetAttribute(_ fd: Int32, _ name: String, _ value: UnsafeRawPointer?, _ size: Int) -> Int32 {
    fsetxattr(fd, name, value, size, 0, 0)
}
func systemRemoveAttribute(_ fd: Int32, _ name: String) -> Int32 { fremovexattr(fd, name, 0) }
let noAttributeErrno = ENOATTR
#endif

#if canImport(Darwin)
/// Darwin numbers no mounts; the device (`st_dev`) tells file systems apart.
func mountID(_ fd: Int32) -> UInt64? { nil }
#endif

#if canImport(Darwin)
/// Swaps two entries (`RENAME_SWAP`).
func systemExchange(_ folder: Int32, _ name: String, _ otherFolder: Int32, _ otherName: String) -> Int32 {
    renameatx_np(folder, name, otherFolder, otherName, UInt32(RENAME_SWAP))
}
#endif

#if canImport(Darwin)
/// Starts a detached thread named `name`. Failing to start a thread means the process is out of resources.
func startThread(name: String, _ body: @escaping @Sendable () -> Void) {
    let context = Unmanaged.passRetained(ThreadStart(name: name, body: body)).toOpaque()
    var thread: pthread_t?
    let rc = pthread_create(&thread, nil, { context in
        let start = Unmanaged<ThreadStart>.fromOpaque(context).takeRetainedValue()
        _ = pthread_setname_np(start.name)
        start.body()
        return nil
    }, context)
    precondition(rc == 0, "cannot start thread \(name): error \(rc)")
    if let thread { pthread_detach(thread) }
}

/// The system allocator returns large blocks by itself: nothing to set.
func setLargeAllocationThreshold(_ bytes: Int) {}
#endif
