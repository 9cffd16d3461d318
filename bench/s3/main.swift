// The client half of bench/s3/run.sh: one upload through Skylift's upload engine (Uploads.Uploader over an
// S3Remote), parts in flight as `skylift upload --parts N` sends them.
//   s3-bench FILE s3://bucket/ NAME [parts]
// Endpoint and credentials come from the AWS environment variables (AWS_ENDPOINT_URL, AWS_ACCESS_KEY_ID, ...).
import Foundation
import SkyliftHTTPClient
import SkyliftRemotes
import SkyliftUploads

@main
struct S3Bench {
    static func main() async throws {
        let args = CommandLine.arguments
        guard args.count >= 4 else {
            FileHandle.standardError.write(Data("usage: s3-bench FILE s3://bucket/ NAME [parts]\n".utf8))
            exit(2)
        }
        let remote = try S3Remote.resolve(args[2], addressing: .path, transport: makeDefaultTransport())
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("s3-bench-state-\(getpid())")
        defer { try? FileManager.default.removeItem(at: state) }
        let parts = args.count > 4 ? Int(args[4]) ?? UploadOptions.defaultParts : UploadOptions.defaultParts
        let uploader = Uploader(remote: remote, store: ResumeFileStore(directory: state), options: UploadOptions(force: true, parts: parts))
        let result = try await uploader.run(try await BlobUploadSource.file(args[1]), as: args[3]) { _ in }
        print(result.etag ?? "", result.bytesSent)
    }
}
