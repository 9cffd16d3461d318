import Foundation
import SkyliftCore
import SkyliftHashing

/// Where the web app keeps its state (the server secret, sessions, share links, sign-in codes): a folder of the
/// store (``WebState``), or a bucket every instance serving it shares. Each piece is a short text by name.
public protocol WebStateStore: Sendable {
    /// Where the state lives, for messages.
    var location: String { get }
    /// The text of `name`; nil when there is none.
    func read(_ name: String) throws -> String?
    /// Changes `name`: `change` gets its text (nil when none) and returns the new one, or nil to leave it as it is.
    /// Changes by several processes or instances never interleave; `change` may run more than once (a bucket
    /// reads again when another instance wrote first), so it must do nothing but compute.
    func update(_ name: String, _ change: (String?) throws -> String?) throws
    /// Stores `text` as `name` unless there is one; false when there was.
    func createOnce(_ name: String, _ text: String) throws -> Bool
}

extension WebStateStore {
    /// The 32-byte server secret, made once from the system's random source and kept as `secret`. Removing it
    /// revokes every session and share link. Of several instances starting at once, all get the first one's.
    public func secret() throws -> [UInt8] {
        if let existing = try storedSecret() { return existing }
        var bytes = [UInt8](repeating: 0, count: 32)
        var generator = SystemRandomNumberGenerator()
        for i in bytes.indices { bytes[i] = generator.next() }
        if try createOnce("secret", bytes.hexString + "\n") { return bytes }
        guard let existing = try storedSecret() else {
            throw WebStateError(operation: "read", path: location + "/secret", errno: .invalidArgument)
        }
        return existing
    }

    private func storedSecret() throws -> [UInt8]? {
        guard let text = try read("secret"), let bytes = Hex.bytes(text.trimmingCharacters(in: .whitespacesAndNewlines)),
              bytes.count == 32 else { return nil }
        return bytes
    }
}
