@testable import SkyliftFolderWatch

/// Ignore globs (`--ignore` patterns and .skyliftignore-style rules): compiling, matching and rule checks
/// never trap and finish quickly on any pattern and path; a pattern without wildcards matches itself; and on
/// short inputs the matcher agrees with a plain backtracking reference.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzGlob(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let f = FuzzInput(data, size).fields(2)
    if let glob = try? Glob(f[0]) {
        let matched = glob.matches(f[1])
        // Scalars, not Characters: a backslash followed by a combining mark is one Character.
        if !f[0].unicodeScalars.contains(where: { "*?[]\\{}".unicodeScalars.contains($0) }) {
            require(glob.matches(f[0]), "literal pattern \(f[0].debugDescription) does not match itself")
        }
        let text = Array(f[1].unicodeScalars)
        if glob.tokens.count <= 64, text.count <= 128 {
            require(matched == referenceMatch(glob.tokens, text),
                    "\(f[0].debugDescription) on \(f[1].debugDescription): matcher says \(matched)")
        }
    }
    if let rules = try? IgnoreRules([f[0]]) {
        _ = rules.ignores(f[1], isDirectory: false)
        _ = rules.ignoresAnyComponent(of: f[1], isDirectory: true)
    }
    return 0
}

/// The glob rules as a table over (pattern position, text position), filled from the ends: whether the rest
/// of the pattern matches the rest of the text. Independent of the matcher, and cheap for short inputs.
private func referenceMatch(_ p: [Glob.Token], _ t: [Unicode.Scalar]) -> Bool {
    var table = Array(repeating: Array(repeating: false, count: t.count + 1), count: p.count + 1)
    table[p.count][t.count] = true
    for i in stride(from: p.count - 1, through: 0, by: -1) {
        for j in stride(from: t.count, through: 0, by: -1) {
            let c: Unicode.Scalar? = j < t.count ? t[j] : nil
            let next = j < t.count && table[i + 1][j + 1]
            switch p[i] {
            case .star: table[i][j] = table[i + 1][j] || (c != nil && c != "/" && table[i][j + 1])
            case .doubleStar: table[i][j] = table[i + 1][j] || (c != nil && table[i][j + 1])
            case let .literal(l): table[i][j] = c == l && next
            case .any: table[i][j] = c != nil && c != "/" && next
            case let .set(negated, items):
                guard let c, c != "/" else { table[i][j] = false; continue }
                table[i][j] = items.contains(where: { $0.contains(c) }) != negated && next
            }
        }
    }
    return table[0][0]
}
