import Foundation

/// A request path mapped into the storage root: decoded, validated segments below `/dav/`.
struct StoragePath: Hashable, Sendable {
    /// Decoded path segments below the root; empty for the root itself.
    var segments: [String]
    /// The root's real path (symlinks resolved), without a trailing slash.
    let rootPath: String
    /// The root held open by the store, where walks start; nil to open `rootPath` for each walk. Not part of
    /// the path's identity.
    let rootFolder: RootFolder?

    init(segments: [String], rootPath: String, rootFolder: RootFolder? = nil) {
        self.segments = segments
        self.rootPath = rootPath
        self.rootFolder = rootFolder
    }

    static func == (a: StoragePath, b: StoragePath) -> Bool { a.segments == b.segments && a.rootPath == b.rootPath }

    func hash(into hasher: inout Hasher) {
        hasher.combine(segments)
        hasher.combine(rootPath)
    }

    /// Absolute file-system path.
    var filePath: String { segments.isEmpty ? rootPath : rootPath + "/" + segments.joined(separator: "/") }

    /// The last segment, `""` for the root.
    var name: String { segments.last ?? "" }

    var isRoot: Bool { segments.isEmpty }

    /// The containing collection; nil for the root.
    var parent: StoragePath? {
        segments.isEmpty ? nil : StoragePath(segments: Array(segments.dropLast()), rootPath: rootPath, rootFolder: rootFolder)
    }

    func appending(_ name: String) -> StoragePath { StoragePath(segments: segments + [name], rootPath: rootPath, rootFolder: rootFolder) }

    /// True when `self` is `other` or lies inside it.
    func isWithin(_ other: StoragePath) -> Bool { segments.starts(with: other.segments) }

    /// The URL path clients use for it, percent-encoded; collections end with `/`.
    func href(collection: Bool) -> String {
        let encoded = segments.map { $0.addingPercentEncoding(withAllowedCharacters: .hrefSegment) ?? $0 }
        let base = "/dav/" + encoded.joined(separator: "/")
        return collection && !segments.isEmpty ? base + "/" : base
    }

    /// The path relative to the root, for messages.
    var relative: String { "/" + segments.joined(separator: "/") }
}

extension CharacterSet {
    /// RFC 3986 `pchar` minus the characters that would confuse our own decoder.
    static let hrefSegment = CharacterSet(charactersIn:
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~!$'()*+,;=:@")
}
