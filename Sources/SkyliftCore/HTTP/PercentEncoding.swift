/// `%XX` escapes in URL paths (RFC 3986 §2.1): the one decoder the server's and the proxy's path checks share.
public enum PercentEncoding {
    /// The bytes `text` stands for with every `%XX` decoded; nil when a `%` is not followed by two hex digits.
    public static func decode<Bytes: Collection>(_ text: Bytes) -> [UInt8]? where Bytes.Element == UInt8 {
        var out: [UInt8] = []
        out.reserveCapacity(text.count)
        var it = text.makeIterator()
        while let b = it.next() {
            guard b == UInt8(ascii: "%") else { out.append(b); continue }
            guard let hi = it.next().flatMap(Hex.value), let lo = it.next().flatMap(Hex.value) else { return nil }
            out.append(hi << 4 | lo)
        }
        return out
    }

    /// `%XX` for `byte`, upper-case as RFC 3986 §2.1 recommends.
    public static func escape(_ byte: UInt8) -> [UInt8] {
        [UInt8(ascii: "%"), Hex.digit(byte >> 4, uppercase: true), Hex.digit(byte & 0xF, uppercase: true)]
    }
}
