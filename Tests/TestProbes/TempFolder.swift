import Foundation

/// A test's own scratch folder under the system's temp folder, named `skylift-NAME-UUID`: made when this is made
/// and removed, with everything in it, when this goes. Keep it for as long as the folder is used (a local `let`
/// lives to the end of its scope; a fixture keeps it as a stored property, so its `deinit` runs first).
public final class TempFolder: Sendable {
    public let url: URL

    /// `name` says which test made it, should a killed run leave it behind. `create: false` only reserves the
    /// name, for a test whose subject must make the folder itself; it is removed all the same.
    public init(_ name: String, create: Bool = true) throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("skylift-\(name)-\(UUID().uuidString)")
        if create { try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true) }
    }

    /// `relative` (a name or a path) below the folder; nothing is made.
    public func appending(_ relative: String) -> URL { url.appendingPathComponent(relative) }

    /// Makes the folder `relative` below this one, and any between, and returns it.
    @discardableResult
    public func folder(_ relative: String) throws -> URL {
        let folder = url.appendingPathComponent(relative)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    deinit { try? FileManager.default.removeItem(at: url) }
}
