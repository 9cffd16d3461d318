/// Hexadecimal digits in ASCII bytes, as percent-escapes and hex digests carry them.
public enum Hex {
    /// The value of one hex digit (`0-9`, `a-f`, `A-F`), or nil.
    public static func value(of digit: UInt8) -> UInt8? {
        switch digit {
        case 48...57: digit - 48
        case 65...70: digit - 55
        case 97...102: digit - 87
        default: nil
        }
    }

    /// The ASCII digit for a value 0...15 (`0-9`, then `a-f`, or `A-F` when `uppercase`).
    public static func digit(_ nibble: UInt8, uppercase: Bool = false) -> UInt8 {
        nibble < 10 ? nibble + 48 : nibble + (uppercase ? 55 : 87)
    }

    /// Two hex digits a byte, lower-case unless `uppercase`.
    public static func string<Bytes: Sequence>(_ bytes: Bytes, uppercase: Bool = false) -> String where Bytes.Element == UInt8 {
        // Digests and validators are contiguous: written straight into the string's storage, with no
        // per-byte iterator (this runs for every ETag and thumbnail tag).
        if let made = bytes.withContiguousStorageIfAvailable({ string(contiguous: $0, uppercase: uppercase) }) { return made }
        return Array(bytes).withUnsafeBufferPointer { string(contiguous: $0, uppercase: uppercase) }
    }

    private static func string(contiguous bytes: UnsafeBufferPointer<UInt8>, uppercase: Bool) -> String {
        String(unsafeUninitializedCapacity: bytes.count * 2) { out in
            var at = 0
            for b in bytes {
                out[at] = digit(b >> 4, uppercase: uppercase)
                out[at + 1] = digit(b & 0xF, uppercase: uppercase)
                at += 2
            }
            return at
        }
    }

    /// The bytes an even-length string of hex digits spells, or nil when it is not one.
    public static func bytes(_ hex: String) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(digits.count / 2)
        for i in stride(from: 0, to: digits.count, by: 2) {
            guard let hi = value(of: digits[i]), let lo = value(of: digits[i + 1]) else { return nil }
            out.append(hi << 4 | lo)
        }
        return out
    }
}
