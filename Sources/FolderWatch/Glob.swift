/// A shell-style pattern: `*` (any run without `/`), `**` (any run, `/` included), `?`, `[a-z]`, `[!x]`,
/// and `\` to escape. Matching is over Unicode scalars so multi-byte names behave.
public struct Glob: Sendable, Hashable {
    enum Token: Sendable, Hashable {
        case literal(Unicode.Scalar)
        case any            // ?
        case star           // *
        case doubleStar     // **
        case set(negated: Bool, items: [ClosedRange<Unicode.Scalar>])
    }

    /// The pattern as written.
    public let pattern: String
    let tokens: [Token]

    /// Parses `pattern`; throws `WatchError.badPattern` for an unclosed `[`.
    public init(_ pattern: String) throws(WatchError) {
        self.pattern = pattern
        var out: [Token] = []
        let s = Array(pattern.unicodeScalars)
        var i = 0
        while i < s.count {
            let c = s[i]
            switch c {
            case "*":
                var run = 0
                while i + run < s.count, s[i + run] == "*" { run += 1 }
                // A run of stars is one star (`**` when two or more): matching stays O(stars × text²), not
                // O(pattern × text²) (a pattern of 40 `**` took seconds; found by the glob fuzz target).
                out.append(run >= 2 ? .doubleStar : .star)
                i += run
                continue
            case "?":
                out.append(.any)
            case "\\" where i + 1 < s.count:
                i += 1
                out.append(.literal(s[i]))
            case "[":
                var j = i + 1
                var negated = false
                if j < s.count, s[j] == "!" || s[j] == "^" {
                    negated = true
                    j += 1
                }
                var items: [ClosedRange<Unicode.Scalar>] = []
                var first = true
                while j < s.count, s[j] != "]" || first {
                    first = false
                    let lo = s[j]
                    if j + 2 < s.count, s[j + 1] == "-", s[j + 2] != "]" {
                        let hi = s[j + 2]
                        items.append(lo <= hi ? lo...hi : hi...lo)
                        j += 3
                    } else {
                        items.append(lo...lo)
                        j += 1
                    }
                }
                guard j < s.count else { throw .badPattern(pattern) }
                out.append(.set(negated: negated, items: items))
                i = j
            default:
                out.append(.literal(c))
            }
            i += 1
        }
        tokens = out
    }

    /// Whether `text` matches the whole pattern.
    public func matches(_ text: String) -> Bool {
        let t = Array(text.unicodeScalars)
        // Iterative matcher with one backtrack point per star kind: linear for typical patterns.
        var memo = Set<Int>()
        return match(0, 0, t, &memo)
    }

    private func match(_ pi: Int, _ ti: Int, _ t: [Unicode.Scalar], _ failed: inout Set<Int>) -> Bool {
        var p = pi, k = ti
        while p < tokens.count {
            switch tokens[p] {
            case let .literal(c):
                guard k < t.count, t[k] == c else { return false }
            case .any:
                guard k < t.count, t[k] != "/" else { return false }
            case let .set(negated, items):
                guard k < t.count, t[k] != "/" else { return false }
                let hit = items.contains { $0.contains(t[k]) }
                guard hit != negated else { return false }
            case .star, .doubleStar:
                let crossesSlash = tokens[p] == .doubleStar
                var end = k
                while true {
                    let key = (p + 1) &* (t.count + 1) &+ end
                    if !failed.contains(key) {
                        if match(p + 1, end, t, &failed) { return true }
                        failed.insert(key)
                    }
                    guard end < t.count, crossesSlash || t[end] != "/" else { return false }
                    end += 1
                }
            }
            p += 1
            k += 1
        }
        return k == t.count
    }
}
