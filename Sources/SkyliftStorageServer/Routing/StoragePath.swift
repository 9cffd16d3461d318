import Foundation

/// A request path mapped into the storage root: decoded, validated segments below `/dav/`.
struct StoragePath: Hashable, Sendable {
    /// Decoded path segments below the root; empty for the root itself.
    var segments: [String]
    /// The root's real path (symlinks resolved), without a trailing slash.
    let rootPath: String

    /// Absolute file-system path.
    var filePath: String { segments.isEmpty ? rootPath : rootPath + "/" + segments.joined(separator: "/") }

    /// The last segment, `""` for the root.
    var name: String { segments.last ?? "" }

    var isRoot: Bool { segments.isEmpty }

    /// The containing collection; nil for the root.
    var parent: StoragePath? {
        segments.isEmpty ? nil : StoragePath(segments: Array(segments.dropLast()), rootPath: rootPath)
    }

    func appending(_ name: String) -> StoragePath { StoragePath(segments: segments + [name], rootPath: rootPath) }

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
