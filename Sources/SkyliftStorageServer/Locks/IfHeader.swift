import Foundation

/// The WebDAV `If` header (RFC 4918 §10.4): lists of state-token and entity-tag conditions, optionally
/// tagged with the resource they apply to.
struct IfHeader: Sendable {
    struct Condition: Sendable {
        enum Kind: Sendable { case token(String), etag(String) }
        var negated: Bool
        var kind: Kind
    }

    struct List: Sendable {
        /// The tagged resource (as written), nil for the request URI.
        var resource: String?
        var conditions: [Condition]
    }

    var lists: [List]

    /// Every state token in the header: all of them count as submitted (§10.4.1).
    var tokens: Set<String> {
        Set(lists.flatMap { $0.conditions.compactMap { if case let .token(t) = $0.kind { t } else { nil } } })
    }

    /// Parses the header; nil when malformed.
    init?(_ value: String) {
        var s = Substring(value)
        var lists: [List] = []
        var tag: String?
        func skipSpace() { while let c = s.first, c == " " || c == "\t" { s.removeFirst() } }
        func take(until end: Character) -> String? {
            guard let i = s.firstIndex(of: end) else { return nil }
            let out = String(s[..<i])
            s = s[s.index(after: i)...]
            return out
        }
        while true {
            skipSpace()
            guard let c = s.first else { break }
            s.removeFirst()
            if c == "<" {
                guard let t = take(until: ">") else { return nil }
                tag = t
            } else if c == "(" {
                var conditions: [Condition] = []
                while true {
                    skipSpace()
                    var negated = false
                    // Only the next three characters: lowercasing the whole rest per condition made a long
                    // header cost quadratic time (found by the dav-if fuzz target's profile).
                    if s.prefix(3).lowercased() == "not" {
                        negated = true
                        s = s.dropFirst(3)
                        skipSpace()
                    }
                    guard let d = s.first else { return nil }
                    s.removeFirst()
                    if d == ")" && !negated { break }
                    if d == "<" {
                        guard let t = take(until: ">") else { return nil }
                        conditions.append(Condition(negated: negated, kind: .token(t)))
                    } else if d == "[" {
                        guard let e = take(until: "]") else { return nil }
                        conditions.append(Condition(negated: negated, kind: .etag(e)))
                    } else {
                        return nil
                    }
                }
                if conditions.isEmpty { return nil }
                lists.append(List(resource: tag, conditions: conditions))
            } else {
                return nil
            }
        }
        if lists.isEmpty { return nil }
        self.lists = lists
    }

    /// True when at least one list holds. `resolve` maps a tagged resource to a path, `etag` gives a path's
    /// current entity tag, `locks` the tokens of the locks covering a path.
    func evaluate(requestPath: StoragePath, resolve: (String) -> StoragePath?, etag: (StoragePath) -> String?,
                  locks: (StoragePath) -> Set<String>) -> Bool {
        lists.contains { list in
            let target: StoragePath?
            if let resource = list.resource { target = resolve(resource) } else { target = requestPath }
            guard let path = target else { return false }
            let current = etag(path), held = locks(path)
            return list.conditions.allSatisfy { c in
                let holds: Bool
                switch c.kind {
                case let .token(t): holds = held.contains(t)
                case let .etag(e): holds = current.map { EntityTagMatch.matches(e, $0) } ?? false
                }
                return holds != c.negated
            }
        }
    }
}

/// Entity-tag comparison for `If` header conditions (strong, as RFC 4918 §10.4.8 asks).
enum EntityTagMatch {
    static func matches(_ a: String, _ b: String) -> Bool { a.trimmingCharacters(in: .whitespaces) == b }
}
