import Foundation

/// Where an S3-compatible store is and how to talk to it.
public struct S3Configuration: Sendable {
    /// How bucket names go into request URLs.
    public enum Addressing: String, Sendable, CaseIterable {
        /// `https://endpoint/bucket/key`: what MinIO, Ceph RGW and most test servers expect.
        case path
        /// `https://bucket.endpoint/key`: AWS's preferred style.
        case virtualHost = "virtual-host"
        /// Virtual-host for AWS endpoints and DNS-safe bucket names, path style otherwise.
        case auto
    }

    /// Scheme, host and port (and an optional base path) of the service.
    public var endpoint: URL
    /// The region requests are signed for.
    public var region: String
    /// The keys that sign requests.
    public var credentials: S3Credentials
    /// How bucket names go into URLs.
    public var addressing: Addressing

    /// Settings given directly, without reading the environment.
    public init(endpoint: URL, region: String = "us-east-1", credentials: S3Credentials, addressing: Addressing = .auto) {
        self.endpoint = endpoint
        self.region = region
        self.credentials = credentials
        self.addressing = addressing
    }

    /// Resolves settings the way the AWS CLI does.
    ///
    /// Credentials: `AWS_ACCESS_KEY_ID` + `AWS_SECRET_ACCESS_KEY` (+ `AWS_SESSION_TOKEN`), else the profile
    /// `AWS_PROFILE` (or `default`) in the shared credentials and config files. Region: `AWS_REGION`,
    /// `AWS_DEFAULT_REGION`, the profile's `region`, else `us-east-1`. Endpoint: `endpoint` if given, else
    /// `AWS_ENDPOINT_URL_S3`, `AWS_ENDPOINT_URL`, the profile's `endpoint_url`, else AWS's regional endpoint.
    public static func resolve(environment: [String: String] = ProcessInfo.processInfo.environment,
                               home: URL = FileManager.default.homeDirectoryForCurrentUser,
                               endpoint: URL? = nil, addressing: Addressing = .auto) throws -> S3Configuration {
        let files = try AWSSharedFiles(environment: environment, home: home)
        let profile = environment["AWS_PROFILE"].flatMap { $0.isEmpty ? nil : $0 } ?? "default"
        let credentials: S3Credentials
        if let id = environment["AWS_ACCESS_KEY_ID"], !id.isEmpty {
            guard let secret = environment["AWS_SECRET_ACCESS_KEY"], !secret.isEmpty else {
                throw S3Error.configuration("AWS_ACCESS_KEY_ID is set but AWS_SECRET_ACCESS_KEY is not")
            }
            credentials = S3Credentials(accessKeyID: id, secretAccessKey: secret,
                                        sessionToken: environment["AWS_SESSION_TOKEN"].flatMap { $0.isEmpty ? nil : $0 })
        } else if let id = files.value("aws_access_key_id", profile: profile),
                  let secret = files.value("aws_secret_access_key", profile: profile) {
            credentials = S3Credentials(accessKeyID: id, secretAccessKey: secret,
                                        sessionToken: files.value("aws_session_token", profile: profile))
        } else if profile != "default" && !files.hasProfile(profile) {
            throw S3Error.configuration("AWS profile \(profile.debugDescription) (from AWS_PROFILE) is not in the shared config or credentials file")
        } else {
            throw S3Error.configuration("no S3 credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or aws_access_key_id and aws_secret_access_key for profile \(profile.debugDescription) in ~/.aws/credentials")
        }
        let region = [environment["AWS_REGION"], environment["AWS_DEFAULT_REGION"], files.value("region", profile: profile)]
            .compactMap { $0 }.first { !$0.isEmpty } ?? "us-east-1"
        let endpointText = [environment["AWS_ENDPOINT_URL_S3"], environment["AWS_ENDPOINT_URL"], files.value("endpoint_url", profile: profile)]
            .compactMap { $0 }.first { !$0.isEmpty }
        let resolvedEndpoint: URL
        if let endpoint {
            resolvedEndpoint = endpoint
        } else if let endpointText {
            guard let url = URL(string: endpointText), let scheme = url.scheme?.lowercased(),
                  scheme == "http" || scheme == "https", url.host?.isEmpty == false else {
                throw S3Error.configuration("S3 endpoint \(endpointText.debugDescription) is not an http(s) URL")
            }
            resolvedEndpoint = url
        } else {
            resolvedEndpoint = URL(string: "https://s3.\(region).amazonaws.com")!
        }
        return S3Configuration(endpoint: resolvedEndpoint, region: region, credentials: credentials, addressing: addressing)
    }

    /// Whether requests for `bucket` put the bucket in the host name.
    func usesVirtualHost(for bucket: String) -> Bool {
        switch addressing {
        case .path: return false
        case .virtualHost: return true
        case .auto:
            let host = endpoint.host?.lowercased() ?? ""
            let dnsSafe = bucket.range(of: "^[a-z0-9][a-z0-9-]{1,61}[a-z0-9]$", options: .regularExpression) != nil
            return host.hasSuffix("amazonaws.com") && dnsSafe
        }
    }
}
