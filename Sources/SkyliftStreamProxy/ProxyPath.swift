import Foundation
import SkyliftCore

/// A player's request path, checked so that appended to the origin's prefix it names something under that
/// prefix and nothing else, whatever the origin or libcurl do with it afterwards.
///
/// Refused: paths not starting with `/`, `.` and `..` segments (raw or percent-encoded in any case mix),
/// encoded slashes and backslashes (`%2F`, `%5C`; raw `\` too, which some servers split on), NUL and
/// control characters, and broken `%` escapes. What passes is sent exactly as given, except that bytes a
/// URL may not hold raw are percent-encoded (they decode to the same bytes that were checked).
enum ProxyPath {
    enum Refusal: Error, Equatable, CustomStringConvertible {
        case notAbsolute
        case badEscape
        case dotSegment
        case encodedSeparator
        case controlCharacter
        case notUnderOrigin

        var description: String {
            switch self {
            case .notAbsolute: "the request path does not start with '/'"
            case .badEscape: "the request path has a '%' not followed by two hex digits"
            case .dotSegment: "the request path has a '.' or '..' segment (raw or percent-encoded)"
            case .encodedSeparator: "the request path has an encoded '/' or a '\\' inside a segment"
            case .controlCharacter: "the request path has a NUL or control character"
            case .notUnderOrigin: "the request target does not make a URL under the origin"
            }
        }
    }

    /// `raw` ready to append to the origin's prefix, or why it is refused.
    static func checked(_ raw: String) -> Result<String, Refusal> {
        let bytes = Array(raw.utf8)
        guard bytes.first == UInt8(ascii: "/") else { return .failure(.notAbsolute) }
        for segment in bytes.dropFirst().split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false) {
            guard let decoded = PercentEncoding.decode(segment) else { return .failure(.badEscape) }
            if decoded == [0x2e] || decoded == [0x2e, 0x2e] { return .failure(.dotSegment) }
            if decoded.contains(UInt8(ascii: "/")) || decoded.contains(UInt8(ascii: "\\")) { return .failure(.encodedSeparator) }
            if decoded.contains(where: { $0 < 0x20 || $0 == 0x7f }) { return .failure(.controlCharacter) }
        }
        return .success(encodeDisallowed(bytes))
    }

    /// `bytes` with everything but RFC 3986 path characters (unreserved, sub-delims, `:`, `@`, `/`) and
    /// existing `%XX` escapes percent-encoded.
    static func encodeDisallowed(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        for b in bytes {
            if isPathByte(b) || b == UInt8(ascii: "%") {
                out.append(b)
            } else {
                out.append(contentsOf: PercentEncoding.escape(b))
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func isPathByte(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default:
            "-._~!$&'()*+,;=:@/".utf8.contains(b)
        }
    }
}
