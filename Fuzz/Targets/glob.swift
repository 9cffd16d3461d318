import FolderWatch

/// Ignore globs (`--ignore` patterns and .skyliftignore-style rules): compiling, matching and rule checks
/// never trap and finish quickly on any pattern and path; a pattern without wildcards matches itself.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzGlob(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let f = FuzzInput(data, size).fields(2)
    if let glob = try? Glob(f[0]) {
        _ = glob.matches(f[1])
        // Scalars, not Characters: a backslash followed by a combining mark is one Character.
        if !f[0].unicodeScalars.contains(where: { "*?[]\\{}".unicodeScalars.contains($0) }) {
            require(glob.matches(f[0]), "literal pattern \(f[0].debugDescription) does not match itself")
        }
    }
    if let rules = try? IgnoreRules([f[0]]) {
        _ = rules.ignores(f[1], isDirectory: false)
        _ = rules.ignoresAnyComponent(of: f[1], isDirectory: true)
    }
    return 0
}
