import Foundation
import SkyliftHashing
import SkyliftHTTPClient
import SkyliftHTTPServer
import SkyliftRemotes
import SkyliftCore
import TestProbes
import SkyliftUploads

extension TempFolder {
    /// Writes `count` deterministic pseudo-random bytes (seeded) to `name` and returns its path.
    @discardableResult
    func file(_ name: String, count: Int, seed: UInt64 = 1) throws -> URL {
        let u = url.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: u.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(testBytes(count, seed: seed)).write(to: u)
        return u
    }
}

/// Deterministic bytes (xorshift), so content mistakes show up as digest differences.
func testBytes(_ count: Int, seed: UInt64) -> [UInt8] {
    var x = seed &* 0x9E37_79B9_7F4A_7C15 | 1
    var out = [UInt8](repeating: 0, count: count)
    for i in 0..<count {
        x ^= x << 13; x ^= x >> 7; x ^= x << 17
        out[i] = UInt8(truncatingIfNeeded: x)
    }
    return out
}

/// Collects a handle's events while waiting for its result.
func runCollecting(_ handle: UploadHandle) async -> (Result<UploadResult, any Error>, [UploadEvent]) {
    async let events: [UploadEvent] = { var all: [UploadEvent] = []; for await e in handle.events { all.append(e) }; return all }()
    let result: Result<UploadResult, any Error>
    do { result = .success(try await handle.result()) } catch { result = .failure(error) }
    return (result, await events)
}

extension UploadEvent {
    var isRetried: Bool { if case .retried = self { return true }; return false }
    var resumedOffset: Int64? { if case let .resumed(o) = self { return o }; return nil }
    var restartReason: String? { if case let .restarted(r) = self { return r }; return nil }
    var skipReason: String? { if case let .skipped(r) = self { return r }; return nil }
}

func fastOptions(partLength: Int64 = 64 << 10, force: Bool = false, verify: Bool = false) -> UploadOptions {
    UploadOptions(force: force, verify: verify, retry: .immediate, partLength: partLength)
}

let sharedTransport: any HTTPTransport = CurlTransport()
func remoteHTTP(token: String? = nil) -> RemoteHTTP {
    RemoteHTTP(transport: sharedTransport, headers: RemoteHTTP.headers(token: token), timeout: 10)
}
