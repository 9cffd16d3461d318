import Foundation
import SkyliftHTTPClient
import SkyliftRemotes
import SkyliftS3

/// The S3 service `S3Options` name, checked. Endpoint, region and credentials not given there come from the
/// AWS environment and shared files (`S3Configuration.resolve`), so secrets never pass through the command line.
struct S3Settings {
    var endpoint: URL?
    var addressing: S3Configuration.Addressing

    init(_ options: S3Options, command: String) throws(UsageError) {
        if let raw = options.endpoint {
            guard let url = URL(string: raw), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
                  url.host?.isEmpty == false, url.user == nil, url.password == nil else {
                throw .badValue(command: command, option: S3Options.name(\.endpoint), value: String(raw.prefix { $0 != "?" && $0 != "@" }),
                                expected: "an http(s) URL such as http://127.0.0.1:9000")
            }
            endpoint = url
        }
        switch options.addressing?.lowercased() {
        case nil, "auto": addressing = .auto
        case "path": addressing = .path
        case "virtual", "virtual-host": addressing = .virtualHost
        case let other?:
            throw .badValue(command: command, option: S3Options.name(\.addressing), value: other, expected: "path, virtual or auto")
        }
    }

    /// `text` as an `s3://bucket/prefix/` destination URL, checked before any file is opened; S3 refuses parts
    /// below 5 MiB (all but the last), so a smaller `--part-size` is refused here too.
    static func destination(_ text: String, partSize: PartSize?, command: String, option: String) throws(UsageError) -> URL {
        guard (try? S3Location(parsing: text)) != nil else {
            throw .badValue(command: command, option: option, value: text, expected: "s3://bucket/prefix/ with a valid bucket name")
        }
        guard let url = URL(string: text) else {
            throw .badValue(command: command, option: option, value: text, expected: "s3://bucket/prefix/")
        }
        if let partSize, partSize.bytes < S3PartSize.smallest {
            throw .badValue(command: command, option: PartSize.option, value: partSize.text, expected: "at least 5M for an s3:// destination")
        }
        return url
    }

    /// The engine's part length for S3: without `--part-size`, no cap of our own, so each write's part size
    /// (at least 8 MiB, and large enough that S3's 10,000 parts cover the file) is used as it is.
    static func partLength(given: PartSize?) -> Int64 { given?.bytes ?? .max }

    /// Whether `text` names an S3 location.
    static func isS3(_ text: String) -> Bool { text.lowercased().hasPrefix("s3://") }

    /// The remote for the `s3://bucket/prefix/` folder `text`, taken literally (not the URL made of it, whose
    /// path is percent-encoded); bad locations and settings become one-line failures.
    func remote(_ text: String, transport: any HTTPTransport, environment: [String: String], partLength: Int64? = nil) throws -> S3Remote {
        do {
            var remote = try S3Remote.resolve(text, endpoint: endpoint, addressing: addressing, transport: transport,
                                              environment: environment, home: Self.home(environment))
            remote.partLength = partLength
            return remote
        } catch let error as S3Error {
            throw CommandFailure(error.description)
        }
    }

    /// A client signing for the configured service.
    func client(transport: any HTTPTransport, context: CommandContext) throws -> S3Client {
        do {
            let configuration = try S3Configuration.resolve(environment: context.environment, home: Self.home(context.environment),
                                                            endpoint: endpoint, addressing: addressing)
            return S3Client(configuration: configuration, transport: transport)
        } catch let error as S3Error {
            throw CommandFailure(error.description)
        }
    }

    /// An `s3://bucket/key` URL for the object `text` names, keys taken literally as the AWS CLI takes them
    /// (a `%` or space in a key is part of the key), plus the object's file name.
    static func objectURL(_ text: String, command: String, option: String) throws -> (url: URL, name: String) {
        let location: S3Location
        do {
            location = try S3Location(parsing: text)
        } catch let error as S3Error {
            throw UsageError.badValue(command: command, option: option, value: text, expected: "s3://bucket/key (\(error.description))")
        }
        let name = location.prefix.split(separator: "/").last.map(String.init) ?? ""
        guard !location.prefix.hasSuffix("/"), !name.isEmpty,
              let encoded = location.prefix.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed),
              let url = URL(string: "s3://\(location.bucket)/\(encoded)") else {
            throw UsageError.badValue(command: command, option: option, value: text, expected: "s3://bucket/key naming an object, not a prefix")
        }
        return (url, name)
    }

    /// `$HOME` from the command's environment, where the AWS shared files are looked for.
    static func home(_ environment: [String: String]) -> URL {
        environment["HOME"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0) } ?? FileManager.default.homeDirectoryForCurrentUser
    }
}
