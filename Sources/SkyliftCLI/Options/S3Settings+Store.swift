import Foundation
import SkyliftHTTPClient
import SkyliftS3
import SkyliftStorageServer

extension S3Settings {
    /// The embedded cloud's store at the `s3://bucket/prefix/` location `text` (given as `option`), signed for
    /// the service `s3` names; a bad location or setting is a usage error naming the option.
    static func store(_ text: String, option: String, _ s3: S3Options, command: String, context: CommandContext) throws -> S3Store {
        let location: S3Location
        do { location = try S3Location(parsing: text) } catch {
            throw UsageError.badValue(command: command, option: option, value: text, expected: "s3://bucket/prefix/ with a valid bucket name")
        }
        let client = try S3Settings(s3, command: command).client(transport: makeDefaultTransport(), context: context)
        return S3Store(client: client, location: location)
    }
}
