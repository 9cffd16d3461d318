import SkyliftUploads

/// `--parts N` of `upload`, `copy` and `watch`: how many parts of one file the engine keeps in flight where the
/// remote takes them in any order (S3 multipart; a tus server offering `concatenation`, only when given);
/// remotes that need order still send one part at a time.
enum PartsInFlight {
    static let option = "--parts"

    /// The one declaration of `--parts`, stored at `key` (nil: `UploadOptions.defaultParts`).
    static func declaration<Options>(_ key: WritableKeyPath<Options, Int?> & Sendable) -> OptionDeclaration<Options> {
        .value(option, "N", help: "parts of one file in flight: S3 multipart (default: \(UploadOptions.defaultParts)), tus concatenation where offered (default: 1)",
               key, as: .integer(1...64))
    }

    /// The count to run with.
    static func count(_ given: Int?) -> Int { given ?? UploadOptions.defaultParts }

    /// Partial uploads per file on a tus server offering `concatenation`: only what `--parts` asks for
    /// explicitly; without it, one stream (measured faster, and a crash loses one block, not one per partial).
    static func tusPartials(_ given: Int?) -> Int { given ?? 1 }
}
