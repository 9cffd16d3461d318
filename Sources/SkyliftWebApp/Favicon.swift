/// The app's icon at `/favicon.ico`, which browsers ask for on every site whatever the page says: a 16×16
/// Windows icon (one 32-bit bitmap, the format every browser reads), a blue rounded square with a white
/// upward arrow. Drawn here rather than kept as a binary file so the sources stay text.
enum Favicon {
    static let size = 16

    /// The whole `.ico` file.
    static let bytes: [UInt8] = {
        let pixels = size * size * 4, mask = size * 4
        let image = 40 + pixels + mask
        var out: [UInt8] = []
        out += le16(0) + le16(1) + le16(1)                                  // ICONDIR: an icon, one image
        out += [UInt8(size), UInt8(size), 0, 0] + le16(1) + le16(32) + le32(image) + le32(22)
        out += le32(40) + le32(size) + le32(size * 2) + le16(1) + le16(32)   // BITMAPINFOHEADER (height × 2: colour + mask)
        out += le32(0) + le32(pixels + mask) + le32(0) + le32(0) + le32(0) + le32(0)
        for row in (0 ..< size).reversed() {                                 // bottom-up rows, BGRA
            for column in 0 ..< size { out += pixel(column, row) }
        }
        out += [UInt8](repeating: 0, count: mask)                            // alpha decides; the mask shows all
        return out
    }()

    private static func pixel(_ x: Int, _ y: Int) -> [UInt8] {
        // Corners cut off: a rounded square.
        let corner = (x < 2 || x > 13) && (y < 2 || y > 13) && (x == 0 || x == 15 || y == 0 || y == 15)
        if corner { return [0, 0, 0, 0] }
        let shaft = (x == 7 || x == 8) && y >= 5 && y <= 12
        let head = y >= 3 && y <= 7 && abs(2 * x - 15) <= 2 * (y - 3) + 1
        return shaft || head ? [255, 255, 255, 255] : [0xEB, 0x6F, 0x1F, 255]
    }

    private static func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
    private static func le32(_ v: Int) -> [UInt8] { le16(v & 0xFFFF) + le16(v >> 16 & 0xFFFF) }
}
