/// `--token TOKEN` and `--token-file FILE`: the bearer token, given or read from a private file (see
/// `SecretOptions.token`). Each command words `--token`'s help for its own use of the token.
struct TokenOptions: CommandOptions {
    var token: String?
    var tokenFile: String?

    static let declarations: [OptionDeclaration<TokenOptions>] = [
        .value("--token", "TOKEN", help: "send 'Authorization: Bearer TOKEN' (default: $SKYLIFT_TOKEN)", \.token),
        .value("--token-file", "FILE", help: "read the token from FILE (mode 0600; unlike --token, not visible in ps)", \.tokenFile),
    ]

    /// Whether a token option is on the command line (not the environment).
    var isGiven: Bool { token != nil || tokenFile != nil }
}
