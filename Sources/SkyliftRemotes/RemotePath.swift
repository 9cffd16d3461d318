import Foundation

/// Joining relative object names to folder URLs, segment by segment.
public enum RemotePath {
    /// Characters left as they are inside one path segment.
    private static let segmentAllowed: CharacterSet = {
        var s = CharacterSet.urlPathAllowed
        s.remove(charactersIn: "/;?#%")
        return s
    }()

    /// `folder` with a trailing slash, so relative resolution stays inside it.
    public static func folder(_ url: URL) -> URL {
        if hasTrailingSlash(url) { return url }
        guard var c = URLComponents(url: url, resolvingAgainstBaseURL: true) else { return url }
        c.percentEncodedPath += "/"
        return c.url ?? url
    }

    /// Whether the URL's path ends in `/` (`URL.path` drops that slash, so the encoded path is read).
    public static func hasTrailingSlash(_ url: URL) -> Bool {
        guard let c = URLComponents(url: url, resolvingAgainstBaseURL: true) else { return false }
        return c.percentEncodedPath.hasSuffix("/")
    }

    /// Percent-encodes each segment of `name` (split on `/`).
    public static func encode(_ name: String) -> String {
        name.split(separator: "/", omittingEmptySubsequences: true)
            .map { $0.addingPercentEncoding(withAllowedCharacters: segmentAllowed) ?? String($0) }
            .joined(separator: "/")
    }

    /// The URL of `name` inside `folder`; a trailing slash is kept when `isFolder`.
    public static func url(_ name: String, in folder: URL, isFolder: Bool = false) -> URL {
        let base = Self.folder(folder).absoluteString
        let tail = encode(name) + (isFolder && !name.isEmpty ? "/" : "")
        return URL(string: base + tail) ?? folder
    }

    /// The parent folders of `name`, outermost first: `a/b/c.mp4` → `["a", "a/b"]`.
    public static func parents(of name: String) -> [String] {
        let parts = name.split(separator: "/").map(String.init)
        guard parts.count > 1 else { return [] }
        return (1..<parts.count).map { parts[0..<$0].joined(separator: "/") }
    }

    /// Rejects names that would escape the folder or are empty.
    public static func isValid(_ name: String) -> Bool {
        let parts = name.split(separator: "/", omittingEmptySubsequences: false)
        return !name.isEmpty && !name.hasPrefix("/") && !parts.contains { $0 == ".." || $0 == "." || $0.isEmpty }
    }
}
