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
    var changeTime: timespec { st_ctim }
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

#if os(Linux)
// The xattr calls are in glibc but not in the Glibc module (sys/xattr.h is not part of it): looked up once,
// like `fallocate`. Where one is missing, the call fails with ENOTSUP, as on a file system without them.

private typealias GetAttribute = @convention(c) (Int32, UnsafePointer<CChar>, UnsafeMutableRawPointer?, Int) -> Int
private typealias SetAttribute = @convention(c) (Int32, UnsafePointer<CChar>, UnsafeRawPointer?, Int, Int32) -> Int32
private typealias RemoveAttribute = @convention(c) (Int32, UnsafePointer<CChar>) -> Int32

private func libcSymbol<T>(_ name: String, as type: T.Type) -> T? {
    dlsym(UnsafeMutableRawPointer(bitPattern: 0), name).map { unsafeBitCast($0, to: type) }
}

private let linuxGetAttribute = libcSymbol("fgetxattr", as: GetAttribute.self)
private let linuxSetAttribute = libcSymbol("fsetxattr", as: SetAttribute.self)
private let linuxRemoveAttribute = libcSymbol("fremovexattr", as: RemoveAttribute.self)

func systemGetAttribute(_ fd: Int32, _ name: String, _ buffer: UnsafeMutableRawPointer?, _ size: Int) -> Int {
    guard let call = linuxGetAttribute else { errno = ENOTSUP; return -1 }
    return call(fd, name, buffer, size)
}
func systemSetAttribute(_ fd: Int32, _ name: String, _ value: UnsafeRawPointer?, _ size: Int) -> Int32 {
    guard let call = linuxSetAttribute else { errno = ENOTSUP; return -1 }
    return call(fd, name, value, size, 0)
}
func systemRemoveAttribute(_ fd: Int32, _ name: String) -> Int32 {
    guard let call = linuxRemoveAttribute else { errno = ENOTSUP; return -1 }
    return call(fd, name)
}
/// errno for "no such attribute".
let noAttributeErrno = ENODATA
#endif

#if os(Linux)
// statx is a `_GNU_SOURCE` declaration the Glibc module leaves out: looked up once too.

private typealias StatX = @convention(c) (Int32, UnsafePointer<CChar>, Int32, UInt32, UnsafeMutableRawPointer) -> Int32

private let linuxStatX = libcSymbol("statx", as: StatX.self)

private typealias RenameAt2 = @convention(c) (Int32, UnsafePointer<CChar>, Int32, UnsafePointer<CChar>, UInt32) -> Int32

/// glibc 2.28's `renameat2`, also a `_GNU_SOURCE` declaration.
private let linuxRenameAt2 = libcSymbol("renameat2", as: RenameAt2.self)

/// Swaps two entries (`RENAME_EXCHANGE`, 2, fixed by the Linux ABI); ENOSYS where libc lacks the call.
func systemExchange(_ folder: Int32, _ name: String, _ otherFolder: Int32, _ otherName: String) -> Int32 {
    guard let call = linuxRenameAt2 else { errno = ENOSYS; return -1 }
    return call(folder, name, otherFolder, otherName, 2)
}

/// The id of the mount the open file `fd` lies on (`statx` with STATX_MNT_ID, Linux 5.8 and later); nil where
/// the kernel or libc does not say.
func mountID(_ fd: Int32) -> UInt64? {
    guard let call = linuxStatX else { return nil }
    // struct statx is 256 bytes, fixed by the Linux ABI: stx_mask (u32) at 0, stx_mnt_id (u64) at 144.
    // Flags AT_EMPTY_PATH (0x1000) | AT_SYMLINK_NOFOLLOW (0x100) describe `fd` itself; mask STATX_MNT_ID (0x1000).
    return withUnsafeTemporaryAllocation(byteCount: 256, alignment: 8) { buffer -> UInt64? in
        guard let base = buffer.baseAddress else { return nil }
        base.initializeMemory(as: UInt8.self, repeating: 0, count: 256)
        guard call(fd, "", 0x1000 | 0x100, 0x1000, base) == 0,
              base.load(as: UInt32.self) & 0x1000 != 0 else { return nil }
        return base.load(fromByteOffset: 144, as: UInt64.self)
    }
}
#endif

#if os(Linux)
/// glibc's `pthread_setname_np`, another `_GNU_SOURCE` declaration; nil leaves threads unnamed.
private let linuxSetThreadName = libcSymbol("pthread_setname_np",
                                            as: (@convention(c) (pthread_t, UnsafePointer<CChar>) -> Int32).self)

/// Starts a detached thread named `name` (the kernel keeps 15 bytes of it, as `top -H` and `ps -L` show).
/// Failing to start a thread means the process is out of resources; nothing sensible continues then.
func startThread(name: String, _ body: @escaping @Sendable () -> Void) {
    let context = Unmanaged.passRetained(ThreadStart(name: name, body: body)).toOpaque()
    var thread = pthread_t()
    let rc = pthread_create(&thread, nil, { context in
        let start = Unmanaged<ThreadStart>.fromOpaque(context!).takeRetainedValue()
        _ = linuxSetThreadName?(pthread_self(), String(start.name.utf8.prefix(15)) ?? "skylift")
        start.body()
        return nil
    }, context)
    precondition(rc == 0, "cannot start thread \(name): error \(rc)")
    pthread_detach(thread)
}

/// Keeps blocks of `bytes` and more out of the heap: glibc maps them on their own and unmaps them when freed,
/// instead of raising its threshold after the first such free and keeping later ones in per-thread arenas.
/// `mallopt` is looked up at run time: Swift's Glibc module does not carry `malloc.h`.
func setLargeAllocationThreshold(_ bytes: Int) {
    typealias MallOpt = @convention(c) (Int32, Int32) -> Int32
    let mmapThreshold: Int32 = -3 // M_MMAP_THRESHOLD
    _ = libcSymbol("mallopt", as: MallOpt.self)?(mmapThreshold, Int32(clamping: bytes))
}
#endif
