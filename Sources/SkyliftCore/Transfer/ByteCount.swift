/// Human-readable byte counts: parsing `2G`, `512M`, `1.5GiB`, and formatting.
public enum ByteCount {
    /// Parses a size with an optional binary suffix (K, M, G, T; `B`, `iB` accepted). nil when malformed.
    public static func parse(_ text: String) -> Int64? {
        var s = text.trimmingSpaces().uppercased()
        if s.hasSuffix("IB") { s.removeLast(2) } else if s.hasSuffix("B") { s.removeLast() }
        var multiplier: Double = 1
        if let last = s.last, let power = ["K": 1, "M": 2, "G": 3, "T": 4][String(last)] {
            multiplier = Double(1 << (10 * power))
            s.removeLast()
        }
        guard !s.isEmpty, let value = Double(s), value >= 0, value.isFinite else { return nil }
        let bytes = value * multiplier
        guard bytes < 9.2e18 else { return nil }
        return Int64(bytes)
    }

    /// `1.5 GiB`, `812 KiB`, `17 B`.
    public static func format(_ bytes: Int64) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB"]
        var v = Double(bytes), i = 0
        while v >= 1024 && i < units.count - 1 { v /= 1024; i += 1 }
        if i == 0 { return "\(bytes) B" }
        let rounded = (v * 10).rounded() / 10
        return "\(rounded) \(units[i])"
    }
}
