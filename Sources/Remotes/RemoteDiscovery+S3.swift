import Foundation

extension RemoteDiscovery {
    /// The remote for any destination the tools accept: `s3://bucket/prefix/` becomes an ``S3Remote``
    /// (endpoint and credentials from `s3Endpoint`, then the AWS environment and files; see
    /// ``S3Configuration/resolve(environment:home:endpoint:addressing:)``), anything else goes through
    /// ``discover(_:)``. The S3 remote uses this discovery's transport but not its headers: S3 requests carry
    /// their own signatures.
    public func discover(_ url: URL, s3Endpoint: URL?, s3Addressing: S3Configuration.Addressing = .auto,
                         environment: [String: String] = ProcessInfo.processInfo.environment,
                         home: URL = FileManager.default.homeDirectoryForCurrentUser) async throws -> any Remote {
        guard url.scheme?.lowercased() == "s3" else { return try await discover(url) }
        return try S3Remote.resolve(url.absoluteString, endpoint: s3Endpoint, addressing: s3Addressing,
                                    transport: http.transport, environment: environment, home: home)
    }
}
