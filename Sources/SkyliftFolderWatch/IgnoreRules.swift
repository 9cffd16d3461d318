/// Which paths a watcher leaves alone. Ignored folders are not watched or listed at all.
///
/// A pattern without `/` is tested against the entry's own name (so `*.tmp` ignores such files at any
/// depth); a pattern with `/` is tested against the whole path relative to the root. A trailing `/`
/// limits a pattern to folders (`cache/`).
public struct IgnoreRules: Sendable {
    /// Patterns every watcher ignores unless told otherwise: dotfiles and dot-folders, partial downloads,
    /// temporary and editor backup files.
    public static let defaultPatterns = [".*", "*.part", "*.tmp", "*.crdownload", "*~", "*.swp"]

    struct Rule: Sendable {
        let glob: Glob
        let wholePath: Bool
        let directoriesOnly: Bool
    }

    let rules: [Rule]
    /// The patterns in force, defaults first.
    public let patterns: [String]

    /// - Parameters:
    ///   - extra: user patterns (`--ignore`), added to the defaults.
    ///   - includeDefaults: whether `defaultPatterns` apply.
    public init(_ extra: [String] = [], includeDefaults: Bool = true) throws(WatchError) {
        let all = (includeDefaults ? Self.defaultPatterns : []) + extra
        var rules: [Rule] = []
        for raw in all {
            var pattern = raw
            let dirOnly = pattern.hasSuffix("/") && pattern.count > 1
            if dirOnly { pattern.removeLast() }
            if pattern.hasPrefix("/") { pattern.removeFirst() }
            guard !pattern.isEmpty else { throw .badPattern(raw) }
            rules.append(Rule(glob: try Glob(pattern), wholePath: pattern.contains("/"), directoriesOnly: dirOnly))
        }
        self.rules = rules
        self.patterns = all
    }

    /// The default rules alone.
    public static var standard: IgnoreRules {
        // The defaults are constant and known to parse.
        (try? IgnoreRules()) ?? IgnoreRules(rules: [], patterns: [])
    }

    private init(rules: [Rule], patterns: [String]) {
        self.rules = rules
        self.patterns = patterns
    }

    /// Whether `relativePath` is ignored. Only the last component is tested by name patterns: the watcher
    /// never descends into an ignored folder, so its ancestors were already accepted.
    public func ignores(_ relativePath: String, isDirectory: Bool) -> Bool {
        let name = relativePath.split(separator: "/", omittingEmptySubsequences: true).last.map(String.init) ?? relativePath
        return ignores(relativePath, name: name, isDirectory: isDirectory)
    }

    private func ignores(_ relativePath: String, name: String, isDirectory: Bool) -> Bool {
        for rule in rules where !rule.directoriesOnly || isDirectory {
            if rule.glob.matches(rule.wholePath ? relativePath : name) { return true }
        }
        return false
    }

    /// Whether any component of `relativePath` is ignored (used for paths that arrive without their
    /// ancestors having been checked, such as rename targets).
    public func ignoresAnyComponent(of relativePath: String, isDirectory: Bool) -> Bool {
        let parts = relativePath.split(separator: "/")
        var prefix = ""
        for (index, part) in parts.enumerated() {
            prefix = prefix.isEmpty ? String(part) : prefix + "/" + part
            let last = index == parts.count - 1
            // The component is the name: splitting each prefix again made long paths quadratic.
            if ignores(prefix, name: String(part), isDirectory: last ? isDirectory : true) { return true }
        }
        return false
    }
}
