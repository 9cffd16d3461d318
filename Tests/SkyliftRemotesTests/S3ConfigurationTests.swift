import Foundation
import SkyliftHTTPClient
@testable import SkyliftRemotes
import SkyliftHashing
import SkyliftCore
import TestProbes
import Testing
import TestPrograms
@testable import SkyliftS3

@Suite struct S3ConfigurationTests {
    func withHome(_ files: [String: String], _ body: (URL) throws -> Void) throws {
        let scratch = try TempFolder("s3home"), home = scratch.url
        try scratch.folder(".aws")
        for (name, text) in files { try Data(text.utf8).write(to: home.appendingPathComponent(".aws/\(name)")) }
        try body(home)
    }

    @Test func profileFromSharedFiles() throws {
        try withHome([
            "credentials": "[default]\naws_access_key_id = DEFAULTKEY\naws_secret_access_key = defaultsecret\n\n[media]\naws_access_key_id=MEDIAKEY\naws_secret_access_key=mediasecret\naws_session_token = tok\n",
            "config": "[default]\nregion = eu-west-1\n[profile media]\nregion = eu-central-1\nendpoint_url = http://127.0.0.1:9000\ns3 =\n  addressing_style = path\n",
        ]) { home in
            let media = try S3Configuration.resolve(environment: ["AWS_PROFILE": "media"], home: home)
            #expect(media.credentials == S3Credentials(accessKeyID: "MEDIAKEY", secretAccessKey: "mediasecret", sessionToken: "tok"))
            #expect(media.region == "eu-central-1")
            #expect(media.endpoint.absoluteString == "http://127.0.0.1:9000")

            let plain = try S3Configuration.resolve(environment: [:], home: home)
            #expect(plain.credentials.accessKeyID == "DEFAULTKEY")
            #expect(plain.region == "eu-west-1")
            #expect(plain.endpoint.absoluteString == "https://s3.eu-west-1.amazonaws.com")
        }
    }

    @Test func environmentWinsOverFiles() throws {
        try withHome(["credentials": "[default]\naws_access_key_id = FILEKEY\naws_secret_access_key = filesecret\n"]) { home in
            let config = try S3Configuration.resolve(environment: [
                "AWS_ACCESS_KEY_ID": "ENVKEY", "AWS_SECRET_ACCESS_KEY": "envsecret", "AWS_REGION": "ap-south-1",
                "AWS_ENDPOINT_URL": "http://localhost:7480",
            ], home: home)
            #expect(config.credentials == S3Credentials(accessKeyID: "ENVKEY", secretAccessKey: "envsecret"))
            #expect(config.region == "ap-south-1")
            #expect(config.endpoint.absoluteString == "http://localhost:7480")
            #expect(!"\(config.credentials)".contains("envsecret"))
        }
    }

    @Test func missingCredentialsAndProfilesAreNamed() throws {
        try withHome([:]) { home in
            #expect(throws: S3Error.configuration("AWS profile \"nope\" (from AWS_PROFILE) is not in the shared config or credentials file")) {
                try S3Configuration.resolve(environment: ["AWS_PROFILE": "nope"], home: home)
            }
            #expect(throws: S3Error.configuration("AWS_ACCESS_KEY_ID is set but AWS_SECRET_ACCESS_KEY is not")) {
                try S3Configuration.resolve(environment: ["AWS_ACCESS_KEY_ID": "K"], home: home)
            }
            #expect(throws: S3Error.configuration("S3 endpoint \"ftp://x\" is not an http(s) URL")) {
                try S3Configuration.resolve(environment: ["AWS_ACCESS_KEY_ID": "K", "AWS_SECRET_ACCESS_KEY": "S", "AWS_ENDPOINT_URL": "ftp://x"], home: home)
            }
        }
    }

    @Test func locations() throws {
        let location = try S3Location(parsing: "s3://media-bucket/photos/2026/")
        #expect(location == S3Location(bucket: "media-bucket", prefix: "photos/2026/"))
        #expect(location.key(for: "a b.jpg") == "photos/2026/a b.jpg")
        #expect(try S3Location(parsing: "s3://media-bucket") == S3Location(bucket: "media-bucket"))
        #expect(throws: S3Error.configuration("\"http://x/y\" is not an s3:// location")) { try S3Location(parsing: "http://x/y") }
        #expect(throws: S3Error.configuration("\"s3:///key\" has no valid bucket name (3–63 characters: a-z, 0-9, '.', '-')")) {
            try S3Location(parsing: "s3:///key")
        }
    }

    @Test func remoteFromADestination() throws {
        try withHome([:]) { home in
            let remote = try S3Remote.resolve("s3://media/backup/", endpoint: URL(string: "http://127.0.0.1:9000"), addressing: .path,
                                              transport: makeDefaultTransport(),
                                              environment: ["AWS_ACCESS_KEY_ID": "K", "AWS_SECRET_ACCESS_KEY": "S"], home: home)
            #expect(remote.location == S3Location(bucket: "media", prefix: "backup/"))
            #expect(remote.client.configuration.endpoint.absoluteString == "http://127.0.0.1:9000")
            #expect(remote.folderURL.absoluteString == "s3://media/backup/")
        }
    }

    @Test func discoveryHandsS3DestinationsToS3Remote() async throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("s3home-\(UUID().uuidString)")
        let discovery = RemoteDiscovery(http: RemoteHTTP(transport: makeDefaultTransport()))
        let remote = try await discovery.discover(URL(string: "s3://media/in/")!, s3Endpoint: URL(string: "http://127.0.0.1:9000"),
                                                  s3Addressing: .path,
                                                  environment: ["AWS_ACCESS_KEY_ID": "K", "AWS_SECRET_ACCESS_KEY": "S"], home: home)
        let s3 = try #require(remote as? S3Remote)
        #expect(s3.location == S3Location(bucket: "media", prefix: "in/"))
        let spaced = try await discovery.discover(URL(string: "s3://media/my%20dir%20%C3%BC/")!, s3Endpoint: URL(string: "http://127.0.0.1:9000"),
                                                  environment: ["AWS_ACCESS_KEY_ID": "K", "AWS_SECRET_ACCESS_KEY": "S"], home: home)
        #expect((spaced as? S3Remote)?.location == S3Location(bucket: "media", prefix: "my dir ü/"))
        await #expect(throws: S3Error.configuration("\"s3://Bad_Bucket!/\" has no valid bucket name (3–63 characters: a-z, 0-9, '.', '-')")) {
            _ = try await discovery.discover(URL(string: "s3://Bad_Bucket!/")!, s3Endpoint: nil,
                                             environment: ["AWS_ACCESS_KEY_ID": "K", "AWS_SECRET_ACCESS_KEY": "S"], home: home)
        }
    }

    @Test func addressingStyles() throws {
        let credentials = S3Credentials(accessKeyID: "K", secretAccessKey: "S")
        let aws = S3Client(configuration: S3Configuration(endpoint: URL(string: "https://s3.eu-west-1.amazonaws.com")!,
                                                          credentials: credentials), transport: makeDefaultTransport())
        let call = S3Client.Call(method: "GET", bucket: "media", key: "a b/ü+c.jpg")
        #expect(aws.address(call).url.absoluteString == "https://media.s3.eu-west-1.amazonaws.com/a%20b/%C3%BC%2Bc.jpg")
        let local = S3Client(configuration: S3Configuration(endpoint: URL(string: "http://127.0.0.1:9000")!, credentials: credentials),
                             transport: makeDefaultTransport())
        #expect(local.address(call).url.absoluteString == "http://127.0.0.1:9000/media/a%20b/%C3%BC%2Bc.jpg")
        #expect(local.address(call).host == "127.0.0.1:9000")
    }

    /// Signs the same requests as botocore (PyPI) and expects the same Authorization header.
    @Test(arguments: [
        ("PUT", "dir/ünïcødé file+&=.bin", [(String, String)](), "hello"),
        ("GET", "", [("list-type", "2"), ("prefix", "a b/ü"), ("continuation-token", "x/y=")], ""),
        ("POST", "big.mov", [("uploads", "")], ""),
        ("PUT", "big.mov", [("partNumber", "3"), ("uploadId", "abc~def/+=")], "part"),
    ])
    func signatureMatchesBotocore(method: String, key: String, query: [(String, String)], body: String) async throws {
        let credentials = S3Credentials(accessKeyID: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", sessionToken: "session/token=")
        let client = S3Client(configuration: S3Configuration(endpoint: URL(string: "http://127.0.0.1:9000")!, region: "eu-west-1",
                                                             credentials: credentials, addressing: .path),
                              transport: makeDefaultTransport())
        let call = S3Client.Call(method: method, bucket: "media", key: key.isEmpty ? nil : key, query: query)
        let (url, host, path) = client.address(call)
        let bytes = Array(body.utf8)
        var headers: HTTPHeaders = ["Content-Type": "application/octet-stream"]
        let date = Date(timeIntervalSince1970: 1_795_000_000)
        client.signer.sign(method: method, host: host, encodedPath: path, query: query, headers: &headers,
                           payloadHash: Digest.hash(.sha256, bytes).hexString, date: date)
        let (amzDate, _) = S3Signer.timestamps(date)
        let script = """
        import sys, datetime, botocore.auth
        from botocore.awsrequest import AWSRequest
        from botocore.credentials import Credentials
        fixed = datetime.datetime.strptime(sys.argv[3], "%Y%m%dT%H%M%SZ")
        class Frozen(datetime.datetime):
            @classmethod
            def utcnow(cls): return fixed
            @classmethod
            def now(cls, tz=None): return fixed.replace(tzinfo=tz) if tz else fixed
        botocore.auth.datetime.datetime = Frozen
        request = AWSRequest(method=sys.argv[1], url=sys.argv[2], data=sys.argv[4].encode(), headers={"Content-Type": "application/octet-stream"})
        botocore.auth.S3SigV4Auth(Credentials("AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", "session/token="), "s3", "eu-west-1").add_auth(request)
        print(request.headers["Authorization"])
        """
        let botocore = try await python(["-c", script, method, url.absoluteString, amzDate, body])
        #expect(headers["Authorization"] == botocore)
    }

    /// Runs python3 on a thread of its own: waiting for it must not hold one of the concurrency pool's threads.
    func python(_ arguments: [String]) async throws -> String {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try pythonBlocking(arguments) }) }.start()
        }
    }

    func pythonBlocking(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = try TestPrograms.python("botocore")
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
