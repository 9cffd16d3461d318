import Foundation

/// A file outside everything, holding a marker that must never show up in parsed output.
public final class SecretFile: Sendable {
    public let url: URL
    public let marker = "SECRET-\(UUID().uuidString)"

    public init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("skylift-secret-\(UUID().uuidString).txt")
        try Data(marker.utf8).write(to: url)
    }

    deinit { try? FileManager.default.removeItem(at: url) }
}

/// Writes `text` to a new file `name` in `dir` with `mode`, returning its path.
public func secretFile(_ dir: URL, _ name: String, _ text: String, mode: Int) throws -> String {
    let url = dir.appendingPathComponent(name)
    try Data(text.utf8).write(to: url)
    try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: url.path)
    return url.path
}
