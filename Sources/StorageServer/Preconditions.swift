import Foundation
import SkyliftCore
import HTTPServer

/// RFC 9110 §13.2.2 conditional request evaluation, in the order the RFC prescribes.
enum Preconditions {
    /// The status to answer instead of performing the method (304 or 412), or nil to go on.
    /// `stat` is nil when the target does not exist.
    static func evaluate(_ request: HTTPRequest, stat: FileStat?) -> Int? {
        let h = request.headers
        let isRead = request.method == "GET" || request.method == "HEAD"
        if let ifMatch = h["If-Match"] {
            guard let stat else { return 412 }
            if let tags = EntityTag.parseList(ifMatch), !tags.contains(where: { EntityTag.strongMatch($0, stat.etag) }) {
                return 412
            }
        } else if let since = h["If-Unmodified-Since"].flatMap(HTTPDate.parse), let stat,
                  stat.lastModified > since {
            return 412
        }
        if let ifNoneMatch = h["If-None-Match"] {
            let matched: Bool
            if let tags = EntityTag.parseList(ifNoneMatch) {
                matched = stat.map { s in tags.contains { EntityTag.weakMatch($0, s.etag) } } ?? false
            } else {
                matched = stat != nil
            }
            if matched { return isRead ? 304 : 412 }
        } else if isRead, let since = h["If-Modified-Since"].flatMap(HTTPDate.parse), let stat,
                  stat.lastModified <= since {
            return 304
        }
        return nil
    }

    /// Whether an `If-Range` value still describes the representation (strong comparison only).
    static func ifRangeHolds(_ value: String, stat: FileStat) -> Bool {
        let v = value.trimmingSpaces()
        if v.hasPrefix("\"") || v.hasPrefix("W/") { return EntityTag.strongMatch(v, stat.etag) }
        guard let date = HTTPDate.parse(v) else { return false }
        return date == stat.lastModified
    }
}
