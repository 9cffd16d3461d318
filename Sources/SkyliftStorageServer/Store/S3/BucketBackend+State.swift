import Foundation
import SkyliftSystem

/// The bucket's state objects (`.skylift/state/<name>`: the lock table, the web app's state) as the blocking
/// server code reads and changes them: every change a compare-and-swap, so instances sharing the bucket never
/// overwrite each other's.
extension BucketBackend {
    /// Runs `work` against the bucket and waits for it; a failure names `what` was being done: 504 when the bucket
    /// did not answer in time, else 502.
    func run<T: Sendable>(_ what: String, _ work: @escaping @Sendable () async throws -> T) throws(StoreFailure) -> T {
        do {
            return try executor.runBlocking(timeout: timeout, work)
        } catch is BlockingExecutor.TimedOut {
            throw StoreFailure(status: 504, message: "the bucket did not answer in \(Int(timeout)) s to \(what)")
        } catch {
            throw StoreFailure(status: 502, message: "cannot \(what): \(error)")
        }
    }

    /// The bytes and ETag of state object `name`; nil when there is none. `what` names it in messages.
    func readState(_ name: String, what: String) throws(StoreFailure) -> (bytes: [UInt8], etag: String)? {
        let store = store
        return try run("read \(what)") { try await store.readState(name) }
    }

    /// Changes state object `name`: `change` gets its bytes (nil when there is none) and returns the new ones, or
    /// nil to leave it. They are written only over the ETag read (`If-None-Match: *` for the first); when another
    /// instance wrote first, it is read and changed again, up to `attempts` times (then 503). `change` may
    /// therefore run more than once, and must do nothing but compute.
    func updateState(_ name: String, what: String, attempts: Int = 8, _ change: ([UInt8]?) throws -> [UInt8]?) throws {
        let store = store
        for _ in 0 ..< attempts {
            let current = try readState(name, what: what)
            guard let bytes = try change(current?.bytes) else { return }
            let etag = current?.etag
            let written = try run("change \(what)") {
                if let etag { try await store.putIfMatch(name, bytes, etag: etag) } else { try await store.putIfAbsent(name, bytes) }
            }
            if case .stored = written { return }
        }
        throw StoreFailure(status: 503, message: "\(what) changed under every one of \(attempts) attempts; try again")
    }
}
