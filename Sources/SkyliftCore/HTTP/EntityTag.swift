/// Entity-tag comparison and list parsing (RFC 9110 §8.8.3, §13.1).
public enum EntityTag {
    /// True when `tag` is a weak validator (`W/"..."`).
    public static func isWeak(_ tag: String) -> Bool { tag.hasPrefix("W/") }

    /// The opaque part of a tag, without `W/`.
    public static func opaque(_ tag: String) -> String { isWeak(tag) ? String(tag.dropFirst(2)) : tag }

    /// Strong comparison: both strong and identical.
    public static func strongMatch(_ a: String, _ b: String) -> Bool {
        !isWeak(a) && !isWeak(b) && a == b
    }

    /// Weak comparison: opaque parts identical.
    public static func weakMatch(_ a: String, _ b: String) -> Bool { opaque(a) == opaque(b) }

    /// Parses an `If-Match` / `If-None-Match` value. `nil` means `*`.
    public static func parseList(_ value: String) -> [String]? {
        let v = value.trimmingSpaces()
        if v == "*" { return nil }
        var tags: [String] = []
        var current = ""
        var inQuotes = false
        for ch in v {
            if ch == "\"" { inQuotes.toggle(); current.append(ch); continue }
            if ch == "," && !inQuotes {
                let t = current.trimmingSpaces()
                if !t.isEmpty { tags.append(t) }
                current = ""
                continue
            }
            current.append(ch)
        }
        let t = current.trimmingSpaces()
        if !t.isEmpty { tags.append(t) }
        return tags
    }
}
