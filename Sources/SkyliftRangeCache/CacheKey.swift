import Foundation
import SkyliftCore

/// The key a resource is cached under: its origin URL, optionally without named query parameters.
///
/// Signed URLs carry parameters that change on every request (`X-Amz-Signature`, `Expires`, a token);
/// dropping them lets the same object hit the same cache entry. The key is stored on disk, so dropping
/// secret-bearing parameters also keeps them out of the cache directory.
public struct CacheKey: Hashable, Sendable, CustomStringConvertible {
    /// The normalized URL text.
    public let value: String

    /// The key for `url`, with every query parameter whose name is in `droppingQuery` removed
    /// (names compared case-insensitively; the order and encoding of the rest are kept).
    public init(url: URL, droppingQuery: Set<String> = []) {
        let text = url.absoluteString
        // Most keys (every proxied request computes one) have neither: no splitting.
        if !text.utf8.contains(where: { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }) { value = text; return }
        let withoutFragment = text.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)[0]
        let parts = withoutFragment.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { value = String(withoutFragment); return }
        let dropped = Set(droppingQuery.map { $0.lowercased() })
        let kept = parts[1].split(separator: "&").filter { item in
            let name = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)[0]
            let decoded = String(name).removingPercentEncoding ?? String(name)
            return !dropped.contains(decoded.lowercased())
        }
        value = kept.isEmpty ? String(parts[0]) : parts[0] + "?" + kept.joined(separator: "&")
    }

    /// Builds a key from text already normalized (as read back from disk).
    init(normalized: String) { value = normalized }

    /// The URL without user info or query, for log lines: those may hold credentials and signatures.
    public var description: String { Redaction.url(value, query: .drop) }
}
