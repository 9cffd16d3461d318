/// A contiguous run of bytes in a resource: `offset ..< offset + length`.
public struct ByteRange: Hashable, Sendable, CustomStringConvertible {
    /// First byte in the run.
    public var offset: Int64
    /// Number of bytes in the run; never negative.
    public var length: Int64

    /// A range the caller knows to be valid (offset and length not negative, end representable).
    /// Values from outside go through ``init(checkedOffset:length:)`` instead, which never traps.
    public init(offset: Int64, length: Int64) {
        precondition(offset >= 0 && length >= 0 && length <= Int64.max - offset,
                     "ByteRange needs offset >= 0, length >= 0 and offset + length <= Int64.max")
        self.offset = offset
        self.length = length
    }

    /// A range from untrusted numbers (a server's part sizes, a header): nil unless offset and length are
    /// not negative and `offset + length` fits in Int64.
    public init?(checkedOffset offset: Int64, length: Int64) {
        guard offset >= 0, length >= 0, length <= Int64.max - offset else { return nil }
        self.offset = offset
        self.length = length
    }

    /// The range `lower ..< upper`.
    public init(_ range: Range<Int64>) {
        self.init(offset: range.lowerBound, length: range.upperBound - range.lowerBound)
    }

    /// One past the last byte.
    public var end: Int64 { offset + length }
    /// Index of the last byte (as written in `Content-Range`); `offset - 1` when empty.
    public var last: Int64 { end - 1 }
    public var isEmpty: Bool { length == 0 }
    public var range: Range<Int64> { offset ..< end }

    public func contains(_ position: Int64) -> Bool { position >= offset && position < end }

    /// The overlap of two ranges, or nil when they do not overlap.
    public func clamped(to other: ByteRange) -> ByteRange? {
        let lo = max(offset, other.offset), hi = min(end, other.end)
        return lo < hi ? ByteRange(offset: lo, length: hi - lo) : nil
    }

    /// `bytes a-b/total` as used in `Content-Range`.
    public func contentRange(total: Int64) -> String {
        // Digits written into one buffer: interpolating three integers made three strings, for every range answered.
        String(unsafeUninitializedCapacity: 6 + 3 * 20 + 2) { out in
            var at = 0
            func put(_ byte: UInt8) { out[at] = byte; at += 1 }
            func decimal(_ value: Int64) {
                if value < 0 { put(UInt8(ascii: "-")) }
                let magnitude = value.magnitude
                var divisor: UInt64 = 1
                while magnitude / divisor >= 10 { divisor *= 10 }
                while divisor > 0 {
                    put(UInt8(ascii: "0") + UInt8((magnitude / divisor) % 10))
                    divisor /= 10
                }
            }
            for byte in "bytes ".utf8 { put(byte) }
            decimal(offset); put(UInt8(ascii: "-")); decimal(last); put(UInt8(ascii: "/")); decimal(total)
            return at
        }
    }

    public var description: String { "\(offset)..<\(end)" }
}
