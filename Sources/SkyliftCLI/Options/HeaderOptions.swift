/// `--header 'NAME: VALUE'` (repeatable) and `--header-file FILE`: extra headers, parsed by
/// `SecretOptions.headers`. Each command words `--header`'s help for where the headers go.
struct HeaderOptions: CommandOptions {
    var headers: [String] = []
    var headerFile: String?

    static let declarations: [OptionDeclaration<HeaderOptions>] = [
        .repeated("--header", "'NAME: VALUE'", help: "send this header with every request to the destination", \.headers),
        .value("--header-file", "FILE", help: "more headers, one 'NAME: VALUE' per line of FILE (mode 0600)", \.headerFile),
    ]

    /// Whether a header option is on the command line.
    var isGiven: Bool { !headers.isEmpty || headerFile != nil }
}
