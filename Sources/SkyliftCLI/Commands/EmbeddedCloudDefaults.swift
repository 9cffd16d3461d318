import Foundation
import SkyliftHashing
import SkyliftCore
import SkyliftSystem

/// Where the embedded cloud keeps its store and token when nothing says otherwise, and how the token is
/// created. Shared by `serve` and by `watch` without `--to`.
public struct EmbeddedCloudDefaults: Sendable {
    /// `$XDG_DATA_HOME/skylift`, else `~/.local/share/skylift`.
    public var dataDirectory: URL

    public init(environment: [String: String]) {
        if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") {
            dataDirectory = URL(fileURLWithPath: xdg).appendingPathComponent("skylift")
        } else {
            let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
            dataDirectory = URL(fileURLWithPath: home).appendingPathComponent(".local/share/skylift")
        }
    }

    /// The default store folder.
    public var store: URL { dataDirectory.appendingPathComponent("store") }

    public static let listen = ListenAddress(host: "127.0.0.1", port: 8421)

    /// The store a command works on (`--root DIR`, else the default store), which must be an existing folder.
    static func existingStore(_ root: String?, option: String, environment: [String: String]) throws -> URL {
        let url = root.map { URL(fileURLWithPath: $0) } ?? EmbeddedCloudDefaults(environment: environment).store
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw CommandFailure("\(option) \(url.path) is not a folder")
        }
        return url
    }

    /// The token file kept next to a store: `<store>.token`, mode 0600.
    public static func tokenFile(forStore store: URL) -> URL {
        store.deletingLastPathComponent().appendingPathComponent(store.lastPathComponent + ".token")
    }

    /// Reads the token next to `store`, creating a random one (mode 0600, in folders created 0700) on
    /// first use. Returns the token and whether it was just created. Two first starts at once agree on one
    /// token: the file appears complete or not at all, and only one of them creates it.
    public static func loadOrCreateToken(forStore store: URL) throws -> (token: String, created: Bool) {
        let file = tokenFile(forStore: store)
        if FileManager.default.fileExists(atPath: file.path) { return (try readToken(file), false) }
        var bytes = [UInt8](repeating: 0, count: 24)
        for i in bytes.indices { bytes[i] = UInt8.random(in: 0...255) }
        let fresh = bytes.hexString
        do {
            if try AtomicFile.createNew(file.path, with: Array((fresh + "\n").utf8)) { return (fresh, true) }
        } catch {
            throw CommandFailure("cannot write token file: \(error)")
        }
        return (try readToken(file), false)
    }

    private static func readToken(_ file: URL) throws -> String {
        guard let existing = try? String(contentsOf: file, encoding: .utf8) else {
            throw CommandFailure("cannot read token file \(file.path)")
        }
        let token = existing.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !token.isEmpty else { throw CommandFailure("token file \(file.path) is empty; delete it to get a new token") }
        return token
    }
}
