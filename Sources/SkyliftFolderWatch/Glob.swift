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
        // The live pattern positions are stepped over the text together (no backtracking): the cost is the
        // text's length times the live positions, whatever the pattern. The backtracking matcher this replaces
        // was quadratic in the text per star and ran the glob fuzz target at a few hundred inputs a second.
        var live = LivePositions(count: tokens.count + 1)
        live.add(0, tokens)
        for c in text.unicodeScalars {
            live.advance()
            for p in live.previous where p < tokens.count {
                switch tokens[p] {
                case let .literal(l): if c == l { live.add(p + 1, tokens) }
                case .any: if c != "/" { live.add(p + 1, tokens) }
                case let .set(negated, items):
                    if c != "/", items.contains(where: { $0.contains(c) }) != negated { live.add(p + 1, tokens) }
                case .star: if c != "/" { live.add(p, tokens) }
                case .doubleStar: live.add(p, tokens)
                }
            }
            if live.current.isEmpty { return false }
        }
        return live.current.contains(tokens.count)
    }
}

/// The pattern positions a glob match can be at after the text read so far, with a stamp per position so
/// each is added once per step.
private struct LivePositions {
    private(set) var current: [Int] = []
    private(set) var previous: [Int] = []
    private var stamp: [Int]
    private var step = 1

    init(count: Int) { stamp = Array(repeating: 0, count: count) }

    /// Starts the next step: what was current becomes `previous`, and current starts empty.
    mutating func advance() {
        swap(&current, &previous)
        current.removeAll(keepingCapacity: true)
        step += 1
    }

    /// Adds position `p`, and the positions after it that a star can reach without reading anything.
    mutating func add(_ p: Int, _ tokens: [Glob.Token]) {
        var q = p
        while q < stamp.count, stamp[q] != step {
            stamp[q] = step
            current.append(q)
            guard q < tokens.count, tokens[q] == .star || tokens[q] == .doubleStar else { return }
            q += 1
        }
    }
}
