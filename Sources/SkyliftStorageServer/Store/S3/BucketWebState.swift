import Foundation
import SkyliftWebApp

/// The web app's state in a bucket (the server secret, sessions, share links, sign-in codes), each piece a state
/// object `.skylift/state/webapp/<name>`, so every instance serving the bucket signs and checks with the same secret
/// and knows the same sessions and links.
///
/// A change is a compare-and-swap of the object (`BucketBackend.updateState`). The secret is created once with
/// `If-None-Match: *`: of instances starting together, all use the one that won. Anyone who can read the bucket's
/// `.skylift/` can read the secret, as they can read the files.
struct BucketWebState: WebStateStore {
    let backend: BucketBackend
    var location: String { "s3://\(backend.store.bucket)/\(backend.store.prefix).skylift/state/webapp" }

    func read(_ name: String) throws -> String? {
        try backend.readState("webapp/" + name, what: "\(location)/\(name)").map { String(decoding: $0.bytes, as: UTF8.self) }
    }

    func update(_ name: String, _ change: (String?) throws -> String?) throws {
        try backend.updateState("webapp/" + name, what: "\(location)/\(name)") { bytes in
            try change(bytes.map { String(decoding: $0, as: UTF8.self) }).map { Array($0.utf8) }
        }
    }

    func createOnce(_ name: String, _ text: String) throws -> Bool {
        let store = backend.store, bytes = Array(text.utf8)
        if case .stored = try backend.run("create \(location)/\(name)", { try await store.putIfAbsent("webapp/" + name, bytes) }) { return true }
        return false
    }
}
