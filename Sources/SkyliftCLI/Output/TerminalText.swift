/// Text that came from outside (file names, object keys, a server's error message) made safe to print: every
/// control character but the line break and the tab (C0, DEL, and the C1 range a terminal may also obey) is
/// shown as a visible escape such as `\x1b`, so a hostile name cannot move the cursor, rewrite earlier lines,
/// set the window title or answer for the user.
enum TerminalText {
    static func safe(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            guard isControl(scalar) else {
                out.append(scalar)
                continue
            }
            let hex = String(scalar.value, radix: 16)
            let escape = scalar.value > 0xFF ? "\\u{\(hex)}" : "\\x" + (hex.count < 2 ? "0" : "") + hex
            out.append(contentsOf: escape.unicodeScalars)
        }
        return String(out)
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x0A, 0x09: false
        case 0x00 ... 0x1F, 0x7F ... 0x9F: true
        default: false
        }
    }
}
