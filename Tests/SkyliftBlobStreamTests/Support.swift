import SkyliftBlobStream
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import SkyliftHashing
import SkyliftHTTPServer
import Synchronization
import TestProbes

extension TempFolder {
    /// Writes `count` pseudo-random bytes (seeded) and returns the path and the bytes.
    func randomFile(_ name: String, count: Int, seed: UInt64 = 42) throws -> (path: String, bytes: [UInt8]) {
        var rng = SplitMix(seed: seed)
        let bytes = (0 ..< count).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
        let url = url.appendingPathComponent(name)
        try Data(bytes).write(to: url)
        // An old mtime, so a later write is seen as a change even within one coarse clock tick.
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: 1_600_000_000)],
                                              ofItemAtPath: url.path)
        return (url.path, bytes)
    }
}

/// Small deterministic generator so failures reproduce.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Reads a stream to its end with reads of `readSize`; returns the bytes and the last read's result.
func drain(_ stream: InputStream, readSize: Int = 7000, limit: Int = .max) -> (bytes: [UInt8], last: Int) {
    var out: [UInt8] = []
    var buf = [UInt8](repeating: 0, count: readSize)
    while out.count < limit {
        let n = buf.withUnsafeMutableBufferPointer { stream.read($0.baseAddress!, maxLength: min(readSize, limit - out.count)) }
        if n <= 0 { return (out, n) }
        out += buf[0 ..< n]
    }
    return (out, 1)
}

/// Runs `body` on a fresh thread (not the Swift concurrency pool) and waits for it.
func onThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { c in
        let t = Thread { c.resume(returning: body()) }
        t.stackSize = 1 << 20
        t.start()
    }
}

/// Sets the offset property the way Foundation callers do.
@discardableResult
func setOffset(_ stream: InputStream, _ offset: Int64) -> Bool {
    stream.setProperty(NSNumber(value: offset), forKey: .fileCurrentOffsetKey)
}

/// Accepts PUT bodies and answers `<byte count> <sha256 hex>`: the test compares without keeping the body.
final class DigestingHandler: HTTPHandler {
    final class Receiver: HTTPBodyReceiver {
        var digest: Digest? = Digest(.sha256)
        var count = 0
        let onFinish: () -> Void
        init(onFinish: @escaping () -> Void) { self.onFinish = onFinish }
        func receive(_ chunk: UnsafeRawBufferPointer) -> HTTPResponse? {
            digest?.update(chunk)
            count += chunk.count
            return nil
        }
        func finish() -> HTTPResponse {
            let hex = digest.take()?.finalize().hexString ?? ""
            onFinish()
            return .text(201, "\(count) \(hex)")
        }
        func abort() {}
    }

    private let finished = Mutex(0)
    /// Bodies received in full.
    var completed: Int { finished.withLock { $0 } }

    func head(_ request: HTTPRequest) -> HTTPHeadDecision {
        request.method == "PUT" ? .receive(Receiver { [self] in finished.withLock { $0 += 1 } }) : .respond(.text(405, "PUT only"))
    }
}

/// A file source that truncates its own file once a read reaches `after`: a file shrinking mid-upload.
final class ShrinkingSource: BlobSource {
    let inner: FileSource
    let path: String
    let after: Int64
    let size: Int64
    private let done = Mutex(false)

    init(_ inner: FileSource, path: String, after: Int64, to size: Int64) {
        self.inner = inner
        self.path = path
        self.after = after
        self.size = size
    }

    var name: String { inner.name }
    func open(completion: @escaping @Sendable (Result<BlobInfo, any Error>) -> Void) { inner.open(completion: completion) }
    func close() { inner.close() }

    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws -> Int {
        let shrinkNow = offset >= after && done.withLock { d in defer { d = true }; return !d }
        if shrinkNow { _ = truncate(path, off_t(size)) }
        return try inner.read(into: buffer, at: offset)
    }
}

/// A source over bytes that turns itself invalid after every `every` bytes read; each re-open bumps its
/// version, and when `changesOnReopen` the bytes (and identity) change with it.
final class FlakySource: BlobSource {
    let base: [UInt8]
    let every: Int
    let changesOnReopen: Bool
    private struct State { var version = 0; var readSinceOpen = 0; var opens = 0 }
    private let state = Mutex(State())

    init(_ base: [UInt8], every: Int, changesOnReopen: Bool) {
        self.base = base
        self.every = every
        self.changesOnReopen = changesOnReopen
    }

    var name: String { "flaky-source" }
    var opens: Int { state.withLock { $0.opens } }

    func open(completion: @escaping @Sendable (Result<BlobInfo, any Error>) -> Void) {
        let version = state.withLock { s -> Int in
            s.opens += 1
            if s.opens > 1, changesOnReopen { s.version += 1 }
            s.readSinceOpen = 0
            return s.version
        }
        // Completes on another thread, as a library callback would.
        DispatchQueue.global().async {
            completion(.success(BlobInfo(length: Int64(self.base.count), identity: BlobIdentity("flaky:v\(version)"))))
        }
    }

    var isValid: Bool { state.withLock { $0.readSinceOpen < every } }

    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws -> Int {
        let (version, allowed) = state.withLock { s -> (Int, Int) in (s.version, every - s.readSinceOpen) }
        guard allowed > 0 else { throw BlobStreamError.invalidated(name: name) }
        let start = Int(offset)
        let n = min(buffer.count, base.count - start, allowed)
        guard n > 0 else { return 0 }
        for i in 0 ..< n { buffer[i] = base[start + i] &+ UInt8(truncatingIfNeeded: version) }
        state.withLock { $0.readSinceOpen += n }
        return n
    }

    func close() {}
}

/// Wraps a source so its open completes on `queue` only once the test opens `gate`.
final class GatedSource: BlobSource {
    let inner: any BlobSource
    let queue = DispatchQueue(label: "GatedSource.open")
    let gate = DispatchSemaphore(value: 0)

    init(_ inner: any BlobSource) { self.inner = inner }

    var name: String { inner.name }
    var openCompletionQueue: DispatchQueue? { queue }

    func open(completion: @escaping @Sendable (Result<BlobInfo, any Error>) -> Void) {
        DispatchQueue.global().async {
            self.gate.wait()
            self.queue.async { self.inner.open(completion: completion) }
        }
    }

    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws -> Int {
        try inner.read(into: buffer, at: offset)
    }

    func close() { inner.close() }
}

/// PUTs the stream and returns the server's `<count> <sha256>` answer.
func putStream(_ stream: InputStream, length: Int64, to url: URL) async throws -> (status: Int, body: String) {
    var request = URLRequest(url: url)
    request.httpMethod = "PUT"
    request.httpBodyStream = stream
    request.setValue(String(length), forHTTPHeaderField: "Content-Length")
    let session = URLSession(configuration: .ephemeral)
    defer { session.finishTasksAndInvalidate() }
    return try await withCheckedThrowingContinuation { c in
        session.dataTask(with: request) { data, response, error in
            if let error { return c.resume(throwing: error) }
            let status = (response as? HTTPURLResponse)?.statusCode ?? 0
            c.resume(returning: (status, String(decoding: data ?? Data(), as: UTF8.self)))
        }.resume()
    }
}
