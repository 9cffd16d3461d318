import SkyliftHashing

/// `--digests LIST`: which digests the store keeps (serve, scrub). SHA-256 is always kept.
enum DigestOption {
    static let help = "digests to keep, from sha256,sha1,md5 (default: sha256; sha256 is always kept)"

    /// The one declaration of `--digests`, stored at `key` (nil: SHA-256 only).
    static func declaration<Options>(_ key: WritableKeyPath<Options, Set<DigestAlgorithm>?> & Sendable) -> OptionDeclaration<Options> {
        .value("--digests", "LIST", help: help, key, as: parser)
    }

    /// A comma-separated list of algorithm names; SHA-256 is always added.
    static var parser: ValueParser<Set<DigestAlgorithm>> {
        ValueParser(expected: "a comma-separated list of sha256, sha1, md5") { list in
            var chosen: Set<DigestAlgorithm> = [.sha256]
            for name in list.split(separator: ",", omittingEmptySubsequences: false) {
                let key = name.lowercased().replacingOccurrences(of: "-", with: "")
                guard let algorithm = DigestAlgorithm(rawValue: key) else { return nil }
                chosen.insert(algorithm)
            }
            return chosen
        }
    }

    /// The algorithms to keep.
    static func algorithms(_ given: Set<DigestAlgorithm>?) -> Set<DigestAlgorithm> { given ?? [.sha256] }
}
