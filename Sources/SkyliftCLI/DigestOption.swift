import Hashing

/// `--digests LIST`: which digests the store keeps (serve, scrub). SHA-256 is always kept.
enum DigestOption {
    static let option = OptionSpec("--digests", "LIST",
                                   help: "digests to keep, from sha256,sha1,md5 (default: sha256; sha256 is always kept)")

    /// The algorithms named by `--digests` (SHA-256 added); a clear usage error for an unknown name.
    static func algorithms(_ arguments: ParsedArguments, command: String) throws(UsageError) -> Set<DigestAlgorithm> {
        var chosen: Set<DigestAlgorithm> = [.sha256]
        guard let list = arguments.value("--digests") else { return chosen }
        for name in list.split(separator: ",", omittingEmptySubsequences: false) {
            let key = name.lowercased().replacingOccurrences(of: "-", with: "")
            guard let algorithm = DigestAlgorithm(rawValue: key) else {
                throw UsageError.badValue(command: command, option: "--digests", value: String(name),
                                              expected: "a comma-separated list of sha256, sha1, md5")
            }
            chosen.insert(algorithm)
        }
        return chosen
    }
}
