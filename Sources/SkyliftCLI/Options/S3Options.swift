/// `--s3-endpoint` and `--s3-addressing`, shared by every command that takes `s3://` locations.
struct S3Options: CommandOptions {
    var endpoint: String?
    var addressing: String?

    static let declarations: [OptionDeclaration<S3Options>] = [
        .value("--s3-endpoint", "URL", help: "S3 service for s3:// locations (default: $AWS_ENDPOINT_URL, else AWS)", \.endpoint),
        .value("--s3-addressing", "MODE", help: "path, virtual or auto: bucket in the URL path or host (default: auto)",
               choices: ["path", "virtual", "auto"], \.addressing),
    ]
}
