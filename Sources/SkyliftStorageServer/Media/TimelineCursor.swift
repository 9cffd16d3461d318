import Foundation

/// Where a timeline page ended: the last item's `taken` time and path, so the next page starts just after it
/// in the timeline's order (newest first, then by path). On the wire it is base64url (no padding) of
/// `"<seconds> <nanoseconds> <path>"`: opaque to the app, and safe in a query without escaping. The text comes
/// back from the client, so it is parsed with bounds (at most ``maxLength`` characters) like any other input.
struct TimelineCursor: Equatable {
    static let maxLength = 8192

    let seconds: Int64
    let nanoseconds: Int32
    let path: String

    init(seconds: Int64, nanoseconds: Int32, path: String) {
        self.seconds = seconds
        self.nanoseconds = nanoseconds
        self.path = path
    }

    /// Nil for anything that is not a cursor this server made.
    init?(text: String) {
        guard !text.isEmpty, text.utf8.count <= Self.maxLength,
              text.utf8.allSatisfy({ Self.alphabet.contains($0) }) else { return nil }
        var b64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        b64 += String(repeating: "=", count: (4 - b64.count % 4) % 4)
        guard let data = Data(base64Encoded: b64), let plain = String(data: data, encoding: .utf8) else { return nil }
        // Split on scalars, not characters: a path that begins with a combining mark joins the space before it
        // into one character (the fuzzer found such a name's cursor refused).
        let fields = plain.unicodeScalars.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        guard fields.count == 3, let s = Self.integer(Substring(fields[0])), let n = Self.integer(Substring(fields[1])),
              (0 ..< 1_000_000_000).contains(n) else { return nil }
        self.init(seconds: s, nanoseconds: Int32(n), path: String(String.UnicodeScalarView(fields[2])))
    }

    /// The cursor as sent to the client.
    var text: String {
        Data("\(seconds) \(nanoseconds) \(path)".utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    private static let alphabet = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// An optionally signed decimal of at most 19 digits, written the way `String(Int64)` writes it.
    private static func integer(_ text: Substring) -> Int64? {
        guard text.count <= 20, let value = Int64(text), String(value) == text else { return nil }
        return value
    }
}
