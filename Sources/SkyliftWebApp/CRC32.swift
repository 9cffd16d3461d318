/// CRC-32 as zip uses it (IEEE 802.3, reflected polynomial 0xEDB88320), updated piece by piece.
public struct CRC32: Sendable {
    private static let table: [UInt32] = (0..<256).map { n -> UInt32 in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    private var state: UInt32 = 0xFFFF_FFFF

    public init() {}

    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        var c = state
        Self.table.withUnsafeBufferPointer { t in
            for b in bytes { c = t[Int((c ^ UInt32(b)) & 0xFF)] ^ (c >> 8) }
        }
        state = c
    }

    public var value: UInt32 { state ^ 0xFFFF_FFFF }
}
