import Foundation

/// RFC 9110 §13.2.2 conditional request evaluation: the one implementation `serve` and `proxy` share.
///
/// The preconditions are read in the order the RFC prescribes: `If-Match`, else `If-Unmodified-Since`;
/// then `If-None-Match`, else (GET/HEAD only) `If-Modified-Since`; last `If-Range`, which only decides
/// whether a `Range` header is honoured. Field values come from clients and are treated as hostile: an
/// unparsable date is ignored as §13.1.3/§13.1.4 say, an unparsable tag list matches nothing.
public enum ConditionalRequest {
    /// The validators of the selected representation.
    public struct Validators: Hashable, Sendable {
        /// Entity tag as sent (quotes included, `W/` kept for weak tags); nil when there is none.
        public var etag: String?
        /// Last modification time; nil when unknown.
        public var lastModified: Date?

        public init(etag: String?, lastModified: Date?) {
            self.etag = etag
            self.lastModified = lastModified
        }
    }

    /// What to do with the request.
    public enum Outcome: Hashable, Sendable {
        /// Perform the method. `rangeApplies` is false when `If-Range` no longer describes the
        /// representation: then a `Range` header is ignored and the whole representation is sent.
        case proceed(rangeApplies: Bool)
        /// 304: the client's copy is current (GET and HEAD only).
        case notModified
        /// 412: a precondition failed.
        case preconditionFailed

        /// The status to answer instead of performing the method, or nil to go on.
        public var status: Int? {
            switch self {
            case .proceed: nil
            case .notModified: 304
            case .preconditionFailed: 412
            }
        }
    }

    /// Evaluates the conditional fields of a request with `method` and `headers` against `current`, the
    /// selected representation's validators (nil when the target does not exist).
    public static func evaluate(method: String, headers: HTTPHeaders, current: Validators?) -> Outcome {
        let isRead = method == "GET" || method == "HEAD"
        if let ifMatch = headers["If-Match"] {
            guard let current else { return .preconditionFailed }
            if let tags = EntityTag.parseList(ifMatch),
               !tags.contains(where: { tag in current.etag.map { EntityTag.strongMatch(tag, $0) } ?? false }) {
                return .preconditionFailed
            }
        } else if let since = headers["If-Unmodified-Since"].flatMap(HTTPDate.parse),
                  let modified = current?.lastModified, HTTPDate.seconds(modified) > HTTPDate.seconds(since) {
            return .preconditionFailed
        }
        if let ifNoneMatch = headers["If-None-Match"] {
            if noneMatchFails(ifNoneMatch, current) { return isRead ? .notModified : .preconditionFailed }
        } else if isRead, let since = headers["If-Modified-Since"].flatMap(HTTPDate.parse),
                  let modified = current?.lastModified, HTTPDate.seconds(modified) <= HTTPDate.seconds(since) {
            return .notModified
        }
        let rangeApplies = headers["If-Range"].map { value in current.map { ifRangeHolds(value, $0) } ?? false } ?? true
        return .proceed(rangeApplies: rangeApplies)
    }

    /// True when `If-None-Match` names the current representation (weak comparison; `*` names any).
    static func noneMatchFails(_ value: String, _ current: Validators?) -> Bool {
        guard let current else { return false }
        guard let tags = EntityTag.parseList(value) else { return true }
        guard let etag = current.etag else { return false }
        return tags.contains { EntityTag.weakMatch($0, etag) }
    }

    /// `If-Range` holds when it names the current representation: a strong entity-tag match, or exactly its
    /// Last-Modified date to the second (RFC 9110 §13.1.5).
    public static func ifRangeHolds(_ value: String, _ current: Validators) -> Bool {
        let v = value.trimmingSpaces()
        if v.hasPrefix("\"") || v.hasPrefix("W/") {
            return current.etag.map { EntityTag.strongMatch(v, $0) } ?? false
        }
        guard let date = HTTPDate.parse(v), let modified = current.lastModified else { return false }
        return HTTPDate.seconds(date) == HTTPDate.seconds(modified)
    }
}
