/// Text from outside (a request target, a method, a Host header) made safe for one log line: every byte
/// that is not printable ASCII, and the space that would split a field, become `%XX`.
/// A line built from such fields is always one line of printable characters, whatever a client sent.
public enum LogText {
    /// `text` with control characters (CR, LF, ESC, DEL, C1), spaces and every non-ASCII byte of its UTF-8
    /// written as `%XX`; at most `maxBytes` bytes of it, then `...`.
    ///
    /// `%` itself stays: request targets are percent-encoded already, and a raw CR logged as `%0D` means the
    /// same as a `%0D` the client sent.
    public static func escaped(_ text: String, maxBytes: Int = 4096) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(min(text.utf8.count, maxBytes))
        for byte in text.utf8 {
            if out.count >= maxBytes {
                out.append(contentsOf: Array("...".utf8))
                break
            }
            if byte > 0x20 && byte < 0x7f {
                out.append(byte)
            } else {
                out.append(UInt8(ascii: "%"))
                out.append(Hex.digit(byte >> 4, uppercase: true))
                out.append(Hex.digit(byte & 0xf, uppercase: true))
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
