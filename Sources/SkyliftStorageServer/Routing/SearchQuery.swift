import Foundation
import SkyliftCore

/// Why a `?search=` query was refused (400).
struct SearchQueryError: Error, Equatable, CustomStringConvertible {
    let reason: String
    var description: String { reason }
}

/// The query of `GET <folder>/?search=<text>&after=<cursor>&limit=<n>`, parsed with bounds: the text is 1 to
/// ``maxTextBytes`` bytes of UTF-8, the limit 1 to ``maxLimit`` (default ``defaultLimit``), and the cursor an
/// opaque base64url string the previous page's `next` gave (the path of the last entry that page looked at,
/// below the folder). Other parameters are ignored (cache busters); a repeated one is refused.
struct SearchQuery: Equatable {
    static let maxTextBytes = 256
    static let maxLimit = 500
    static let defaultLimit = 100
    /// Longest query taken at all, and most parameters in it.
    static let maxQueryBytes = 16 << 10
    static let maxParameters = 16

    /// What names must contain (compared without regard to case).
    let text: String
    /// Where the previous page stopped: segments below the folder; empty to start at the top.
    let after: [String]
    let limit: Int

    /// True when `query` asks for a search (has a `search` parameter), however well-formed.
    static func asks(_ query: String) -> Bool {
        query.utf8.count <= maxQueryBytes && query.split(separator: "&").contains { $0 == "search" || $0.hasPrefix("search=") }
    }

    static func parse(_ query: String) -> Result<SearchQuery, SearchQueryError> {
        guard query.utf8.count <= maxQueryBytes else { return .failure(.init(reason: "the query is too long")) }
        let pairs = query.split(separator: "&", omittingEmptySubsequences: true)
        guard pairs.count <= maxParameters else { return .failure(.init(reason: "too many query parameters")) }
        var values: [String: String] = [:]
        for pair in pairs {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(parts[0])
            guard ["search", "after", "limit"].contains(name) else { continue }
            guard values[name] == nil else { return .failure(.init(reason: "\(name) is given twice")) }
            guard let value = decode(parts.count == 2 ? parts[1] : "") else {
                return .failure(.init(reason: "\(name) is not percent-encoded UTF-8"))
            }
            values[name] = value
        }
        let text = values["search"] ?? ""
        guard !text.isEmpty, text.utf8.count <= maxTextBytes else {
            return .failure(.init(reason: "search needs 1 to \(maxTextBytes) bytes of text"))
        }
        var limit = defaultLimit
        if let given = values["limit"] {
            guard given.utf8.count <= 3, given.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), let n = Int(given), n >= 1,
                  n <= maxLimit else { return .failure(.init(reason: "limit must be 1 to \(maxLimit)")) }
            limit = n
        }
        var after: [String] = []
        if let cursor = values["after"], !cursor.isEmpty {
            guard let segments = SearchCursor.decode(cursor) else { return .failure(.init(reason: "after is not a cursor this server gave")) }
            after = segments
        }
        return .success(SearchQuery(text: text, after: after, limit: limit))
    }

    /// A form value: `+` is a space, then percent escapes; nil when an escape is broken or the result not UTF-8.
    private static func decode(_ raw: Substring) -> String? {
        let spaced = raw.utf8.map { $0 == UInt8(ascii: "+") ? UInt8(ascii: " ") : $0 }
        guard let bytes = PercentEncoding.decode(spaced) else { return nil }
        return String(validating: bytes, as: UTF8.self)
    }
}

/// The paging cursor of a search: the path of an entry below the searched folder, `/`-joined, in base64url
/// without padding. Decoding accepts only what could name an entry: at most ``maxSegments`` segments, none
/// empty, `.` or `..`, none holding NUL or starting with the server's hidden prefix.
enum SearchCursor {
    static let maxSegments = FolderSearch.maxDepth + 1
    static let maxBytes = 4096

    static func encode(_ segments: [String]) -> String {
        Data(segments.joined(separator: "/").utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func decode(_ cursor: String) -> [String]? {
        guard cursor.utf8.count <= maxBytes * 4 / 3 + 4,
              cursor.utf8.allSatisfy({ b in (b >= 48 && b <= 57) || (b | 0x20 >= 97 && b | 0x20 <= 122) || b == 45 || b == 95 })
        else { return nil }
        var standard = cursor.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        standard += String(repeating: "=", count: (4 - standard.utf8.count % 4) % 4)
        guard let data = Data(base64Encoded: standard), data.count <= maxBytes,
              let text = String(validating: Array(data), as: UTF8.self) else { return nil }
        let segments = text.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
            .map { String(decoding: $0, as: UTF8.self) }
        guard !segments.isEmpty, segments.count <= maxSegments else { return nil }
        for s in segments {
            // Bytes, not Characters: a combining mark after the prefix would make `hasPrefix` say no.
            guard !s.isEmpty, s != ".", s != "..", !s.utf8.contains(0), !s.utf8.starts(with: PathResolver.hiddenPrefix.utf8)
            else { return nil }
        }
        return segments
    }
}
