#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import SkyliftSystem
import Synchronization
import Testing

/// Signals delivered to the blocked reader; a C signal handler cannot capture context.
private let signalsSeen = Atomic<Int>(0)

@Suite(.serialized) struct FileDescriptorTests {
    /// A read blocked on a pipe is interrupted by real signals whose handler does not ask for restarts
    /// (`siginterrupt`), so the kernel returns EINTR; the descriptor's policy must resume the read and
    /// deliver the bytes written afterwards instead of failing.
    @Test func aReadInterruptedBySignalsIsResumed() throws {
        signal(SIGUSR2) { _ in signalsSeen.add(1, ordering: .relaxed) }
        siginterrupt(SIGUSR2, 1)
        defer { signal(SIGUSR2, SIG_DFL) }
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        let reader = FileDescriptor(rawValue: ends[0]), writer = FileDescriptor(rawValue: ends[1])
        defer { reader.close(); writer.close() }

        let thread = Mutex<pthread_t?>(nil)
        let outcome = Mutex<Result<[UInt8], FileError>?>(nil)
        Thread.detachNewThread {
            var unblock = sigset_t()
            sigemptyset(&unblock)
            sigaddset(&unblock, SIGUSR2)
            pthread_sigmask(SIG_UNBLOCK, &unblock, nil)
            thread.withLock { $0 = pthread_self() }
            var buffer = [UInt8](repeating: 0, count: 16)
            let result = buffer.withUnsafeMutableBytes { raw in
                Result { () throws(FileError) in try reader.read(into: raw, path: "pipe") }
            }.map { Array(buffer[0 ..< $0]) }
            outcome.withLock { $0 = result }
        }
        while thread.withLock({ $0 }) == nil { usleep(1000) }
        let target = try #require(thread.withLock { $0 })
        let before = signalsSeen.load(ordering: .relaxed)
        for _ in 0 ..< 20 {
            usleep(5000)
            pthread_kill(target, SIGUSR2)
        }
        try Array("after".utf8).withUnsafeBytes { try writer.writeAll($0, path: "pipe") }
        while outcome.withLock({ $0 }) == nil { usleep(1000) }
        #expect(signalsSeen.load(ordering: .relaxed) > before)
        #expect(try outcome.withLock({ $0 })?.get() == Array("after".utf8))
    }

    @Test func statusReportsKindSizeAndNanosecondTimes() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("status-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try AtomicFile.replace(path, with: Array("12345".utf8))
        var times = [timespec(tv_sec: 1_700_000_000, tv_nsec: 123_456_789), timespec(tv_sec: 1_700_000_000, tv_nsec: 123_456_789)]
        try #require(utimensat(AT_FDCWD, path, &times, 0) == 0)
        let fd = try FileDescriptor.open(path, .readOnly)
        defer { fd.close() }
        let status = try fd.status(path: path)
        #expect(status.kind == .regular && status.size == 5 && status.permissions == 0o600)
        #expect(status.modifiedSeconds == 1_700_000_000 && status.modifiedNanoseconds == 123_456_789)
        #expect(try FileStatus(path) == status)
        let folder = try FileStatus((path as NSString).deletingLastPathComponent)
        #expect(folder.isDirectory)
    }
}
