import Foundation

/// The byte layout of a zip archive written front to back in one pass (APPNOTE 6.3.9): stored entries, each
/// followed by a data descriptor because its CRC-32 is known only once its bytes are sent, and zip64 records
/// wherever a size, offset or count does not fit the classic fields.
public enum ZipLayout {
    /// What the central directory needs to know about an entry written earlier.
    public struct Record: Sendable {
        public var name: [UInt8]
        public var size: Int64
        public var crc: UInt32
        public var offset: Int64
        public var isFolder: Bool
        public var dosTime: UInt16
        public var dosDate: UInt16

        public init(name: [UInt8], size: Int64, crc: UInt32, offset: Int64, isFolder: Bool, modified: Date) {
            self.name = name
            self.size = size
            self.crc = crc
            self.offset = offset
            self.isFolder = isFolder
            (dosTime, dosDate) = ZipLayout.dosTime(modified)
        }
    }

    static let max32: Int64 = 0xFFFF_FFFF
    /// Bit 3: sizes and CRC follow the data; bit 11: names are UTF-8.
    static let flags: UInt16 = 0x0008 | 0x0800

    /// True when an entry of `size` bytes needs zip64 sizes (local header extra field, 8-byte descriptor).
    public static func needsZip64(size: Int64) -> Bool { size >= max32 }

    /// The local file header. A zip64 entry carries a zip64 extra field with zero sizes, which tells readers
    /// that its data descriptor holds 8-byte sizes.
    public static func localHeader(_ r: Record) -> [UInt8] {
        let zip64 = needsZip64(size: r.size)
        var out = ByteWriter()
        out.u32(0x0403_4B50)
        out.u16(zip64 ? 45 : 20)
        out.u16(flags)
        out.u16(0)                                   // stored
        out.u16(r.dosTime)
        out.u16(r.dosDate)
        out.u32(0)                                   // CRC-32: in the data descriptor
        out.u32(zip64 ? 0xFFFF_FFFF : 0)
        out.u32(zip64 ? 0xFFFF_FFFF : 0)
        out.u16(UInt16(clamping: r.name.count))
        out.u16(zip64 ? 20 : 0)
        out.bytes(r.name)
        if zip64 {
            out.u16(0x0001)
            out.u16(16)
            out.u64(0)
            out.u64(0)
        }
        return out.data
    }

    /// The data descriptor after an entry's bytes.
    public static func dataDescriptor(_ r: Record) -> [UInt8] {
        var out = ByteWriter()
        out.u32(0x0807_4B50)
        out.u32(r.crc)
        if needsZip64(size: r.size) {
            out.u64(UInt64(r.size))
            out.u64(UInt64(r.size))
        } else {
            out.u32(UInt32(r.size))
            out.u32(UInt32(r.size))
        }
        return out.data
    }

    /// The central directory header of one entry; sizes and offset past 32 bits go to a zip64 extra field.
    public static func centralHeader(_ r: Record) -> [UInt8] {
        let bigSize = needsZip64(size: r.size), bigOffset = r.offset >= max32
        var extra = ByteWriter()
        if bigSize || bigOffset {
            extra.u16(0x0001)
            extra.u16(UInt16((bigSize ? 16 : 0) + (bigOffset ? 8 : 0)))
            if bigSize { extra.u64(UInt64(r.size)); extra.u64(UInt64(r.size)) }
            if bigOffset { extra.u64(UInt64(r.offset)) }
        }
        var out = ByteWriter()
        out.u32(0x0201_4B50)
        out.u16(3 << 8 | 45)                         // made by Unix, spec 4.5
        out.u16(bigSize || bigOffset ? 45 : 20)
        out.u16(flags)
        out.u16(0)
        out.u16(r.dosTime)
        out.u16(r.dosDate)
        out.u32(r.crc)
        out.u32(bigSize ? 0xFFFF_FFFF : UInt32(r.size))
        out.u32(bigSize ? 0xFFFF_FFFF : UInt32(r.size))
        out.u16(UInt16(clamping: r.name.count))
        out.u16(UInt16(extra.data.count))
        out.u16(0)                                   // comment
        out.u16(0)                                   // disk
        out.u16(0)                                   // internal attributes
        out.u32(r.isFolder ? (0o40755 << 16) | 0x10 : 0o100644 << 16)
        out.u32(bigOffset ? 0xFFFF_FFFF : UInt32(r.offset))
        out.bytes(r.name)
        out.bytes(extra.data)
        return out.data
    }

    /// The records after the central directory: zip64 end record and locator when a count, size or offset
    /// does not fit, then the classic end record.
    public static func end(entries: Int, directoryOffset: Int64, directorySize: Int64) -> [UInt8] {
        let zip64 = entries >= 0xFFFF || directoryOffset >= max32 || directorySize >= max32
        var out = ByteWriter()
        if zip64 {
            let recordOffset = directoryOffset + directorySize
            out.u32(0x0606_4B50)
            out.u64(44)
            out.u16(3 << 8 | 45)
            out.u16(45)
            out.u32(0)
            out.u32(0)
            out.u64(UInt64(entries))
            out.u64(UInt64(entries))
            out.u64(UInt64(directorySize))
            out.u64(UInt64(directoryOffset))
            out.u32(0x0706_4B50)
            out.u32(0)
            out.u64(UInt64(recordOffset))
            out.u32(1)
        }
        out.u32(0x0605_4B50)
        out.u16(0)
        out.u16(0)
        out.u16(zip64 ? 0xFFFF : UInt16(entries))
        out.u16(zip64 ? 0xFFFF : UInt16(entries))
        out.u32(zip64 ? 0xFFFF_FFFF : UInt32(directorySize))
        out.u32(zip64 ? 0xFFFF_FFFF : UInt32(directoryOffset))
        out.u16(0)
        return out.data
    }

    /// MS-DOS time and date fields (UTC; two-second steps; 1980 to 2107).
    static func dosTime(_ date: Date) -> (time: UInt16, date: UInt16) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        let year = min(max((c.year ?? 1980) - 1980, 0), 127)
        if (c.year ?? 1980) < 1980 { return (0, 1 << 5 | 1) }
        let time = (c.hour ?? 0) << 11 | (c.minute ?? 0) << 5 | (c.second ?? 0) / 2
        let day = year << 9 | (c.month ?? 1) << 5 | (c.day ?? 1)
        return (UInt16(truncatingIfNeeded: time), UInt16(truncatingIfNeeded: day))
    }
}

/// Little-endian fields into a byte array.
struct ByteWriter {
    var data: [UInt8] = []
    mutating func u16(_ v: UInt16) { data += [UInt8(v & 0xFF), UInt8(v >> 8)] }
    mutating func u32(_ v: UInt32) { for i in 0..<4 { data.append(UInt8(truncatingIfNeeded: v >> (8 * i))) } }
    mutating func u64(_ v: UInt64) { for i in 0..<8 { data.append(UInt8(truncatingIfNeeded: v >> (8 * i))) } }
    mutating func bytes(_ b: [UInt8]) { data += b }
}
