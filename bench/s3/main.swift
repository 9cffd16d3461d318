// The client half of bench/s3/run.sh: one upload through Skylift's S3Uploader.
//   s3-bench FILE s3://bucket/key [jobs]
// Endpoint and credentials come from the AWS environment variables (AWS_ENDPOINT_URL, AWS_ACCESS_KEY_ID, ...).
import BlobStream
import Foundation
import HTTPClient
import Remotes

@main
struct S3Bench {
    static func main() async throws {
        let args = CommandLine.arguments
        guard args.count >= 3 else {
            FileHandle.standardError.write(Data("usage: s3-bench FILE s3://bucket/key [jobs]\n".utf8))
            exit(2)
        }
        let path = args[1]
        let location = try S3Location(parsing: args[2])
        let jobs = args.count > 3 ? Int(args[3]) ?? 4 : 4
        let client = S3Client(configuration: try S3Configuration.resolve(addressing: .path), transport: makeDefaultTransport())
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("s3-bench-state")
        let uploader = S3Uploader(client: client, options: .init(stateDirectory: state, jobs: jobs))
        let result = try await uploader.upload(bucket: location.bucket, key: location.prefix) { FileSource(path: path) }
        print(result.etag, result.partsSent)
    }
}
