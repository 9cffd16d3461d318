import SkyliftCore

/// A `--part-size` value (`upload`, `copy`, `watch`): the text given, for messages, and the bytes it means.
struct PartSize: Sendable, Equatable {
    var text: String
    var bytes: Int64

    /// The option's spelling, for messages about it that its own parser cannot give (an S3 minimum).
    static let option = "--part-size"

    /// The one declaration of `--part-size`, stored at `key`.
    static func declaration<Options>(_ key: WritableKeyPath<Options, PartSize?> & Sendable) -> OptionDeclaration<Options> {
        .value(option, "SIZE", help: "tus PATCH size if the server lacks block-checksum, e.g. 16M (default: 64M), or S3 part (at least 5M; default: sized to the file)",
               key, as: ValueParser(expected: "a size of at least 1K, e.g. 16M") { text in
                   ByteCount.parse(text).flatMap { $0 >= 1 << 10 ? PartSize(text: text, bytes: $0) : nil }
               })
    }
}
