import Foundation
import SkyliftSystem
import SkyliftWebApp

/// The web app's state in a bucket (the server secret, sessions, share links, sign-in codes), each piece a state
/// object `.skylift/state/webapp/<name>`, so every instance serving the bucket signs and checks with the same secret
/// and knows the same sessions and links.
///
/// A change reads the object, computes the new text, and writes it only over the ETag read (`If-None-Match: *` for
/// the first), reading again when another instance wrote first. The secret is created once with
/// `If-None-Match: *`: of instances starting together, all use the one that won. Anyone who can read the bucket's
/// `.skylift/` can read the secret, as they can read the files.
struct BucketWebState: WebStateStore {
    let backend: BucketBackend
    /// Changes tried before giving up when other instances keep writing first.
    static let attempts = 8

    var location: String { "s3://\(backend.store.bucket)/\(backend.store.prefix).skylift/state/webapp" }

    /// A failure to read or write the state, naming it.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    func read(_ name: String) throws -> String? {
        try object(name)?.text
    }

    func update(_ name: String, _ change: (String?) throws -> String?) throws {
        let store = backend.store, stateName = "webapp/" + name
        for _ in 0 ..< Self.attempts {
            let current = try object(name)
            guard let text = try change(current?.text) else { return }
            let bytes = Array(text.utf8)
            let written = try run("write \(name) in") {
                if let etag = current?.etag { try await store.putIfMatch(stateName, bytes, etag: etag) } else { try await store.putIfAbsent(stateName, bytes) }
            }
            if case .stored = written { return }
        }
        throw Failure(description: "\(location)/\(name) changed under every one of \(Self.attempts) attempts")
    }

    func createOnce(_ name: String, _ text: String) throws -> Bool {
        let store = backend.store, bytes = Array(text.utf8)
        if case .stored = try run("create \(name) in", { try await store.putIfAbsent("webapp/" + name, bytes) }) { return true }
        return false
    }

    private func object(_ name: String) throws -> (text: String, etag: String)? {
        let store = backend.store
        return try run("read \(name) in") { try await store.readState("webapp/" + name) }
            .map { (String(decoding: $0.bytes, as: UTF8.self), $0.etag) }
    }

    private func run<T: Sendable>(_ what: String, _ work: @escaping @Sendable () async throws -> T) throws -> T {
        do {
            return try backend.executor.runBlocking(timeout: backend.timeout, work)
        } catch is BlockingExecutor.TimedOut {
            throw Failure(description: "the bucket did not answer in \(Int(backend.timeout)) s to \(what) \(location)")
        } catch {
            throw Failure(description: "cannot \(what) \(location): \(error)")
        }
    }
}
