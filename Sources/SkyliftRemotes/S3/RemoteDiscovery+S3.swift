import Foundation
import SkyliftS3

extension RemoteDiscovery {
    /// The remote for any destination the tools accept: `s3://bucket/prefix/` becomes an ``S3Remote``
    /// (endpoint and credentials from `s3Endpoint`, then the AWS environment and files; see
    /// `S3Configuration.resolve`), anything else goes through
    /// ``discover(_:)``. The URL's percent-encoding is undone: `s3://media/my%20dir/` is the prefix `my dir/`.
    /// The S3 remote uses this discovery's transport but not its headers: S3 requests carry their own signatures.
    public func discover(_ url: URL, s3Endpoint: URL?, s3Addressing: S3Configuration.Addressing = .auto,
                         environment: [String: String] = ProcessInfo.processInfo.environment,
                         home: URL = FileManager.default.homeDirectoryForCurrentUser) async throws -> any Remote {
        guard url.scheme?.lowercased() == "s3" else { return try await discover(url) }
        // A URL's path is percent-encoded (Foundation encodes spaces and non-ASCII on parsing); S3 keys are
        // literal, so the location is the decoded text.
        let location = url.absoluteString.removingPercentEncoding ?? url.absoluteString
        return try S3Remote.resolve(location, endpoint: s3Endpoint, addressing: s3Addressing,
                                    transport: http.transport, environment: environment, home: home)
    }
}
