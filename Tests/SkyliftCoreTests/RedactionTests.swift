import Foundation
import SkyliftCore
import Testing

@Suite struct RedactionTests {
    @Test func signatureAndCredentialParametersAreRedacted() {
        let secrets = ["sig", "signature", "Signature", "X-Amz-Signature", "X-Amz-Credential", "X-Amz-Security-Token",
                       "X-Goog-Signature", "token", "access_token", "refresh_token", "key", "apikey", "api_key", "API-Key",
                       "password", "passwd", "secret", "client_secret", "auth", "session", "jwt", "X%2DAmz%2DSignature"]
        for name in secrets {
            #expect(Redaction.url("https://h/p?\(name)=s3cr3t&partNumber=2") == "https://h/p?\(name)=REDACTED&partNumber=2", "\(name)")
        }
        for name in ["partNumber", "uploadId", "X-Amz-Date", "X-Amz-Expires", "list-type", "prefix", "n"] {
            #expect(Redaction.url("https://h/p?\(name)=v") == "https://h/p?\(name)=v", "\(name)")
        }
    }

    @Test func userInfoAndFragmentGoQueryOnRequest() {
        #expect(Redaction.url("https://user:pw@host:8443/a/b?sig=1&x=2#access_token=t") == "https://host:8443/a/b?sig=REDACTED&x=2")
        #expect(Redaction.url("https://AKIA:x@h/k?X-Amz-Credential=AKIA%2F1", query: .drop) == "https://h/k")
        #expect(Redaction.url("http://h/@not-user?flag&token=") == "http://h/@not-user?flag&token=REDACTED")
        // Text that is not a valid URL is cleaned all the same.
        #expect(Redaction.url("ftp://u:p@h/x y?key=v") == "ftp://h/x y?key=REDACTED")
        let url = URL(string: "https://u:p@h/k?X-Amz-Signature=abc&partNumber=2")!
        #expect(Redaction.redactedURL(url).absoluteString == "https://h/k?X-Amz-Signature=REDACTED&partNumber=2")
    }

    @Test func secretHeadersAreRedacted() {
        let h: HTTPHeaders = ["Authorization": "Bearer t", "Cookie": "c=1", "Proxy-Authorization": "Basic x",
                              "X-Amz-Security-Token": "s", "X-Api-Key": "k", "Range": "bytes=0-1", "x-amz-date": "d"]
        let r = Redaction.headers(h)
        #expect(r.fields.map(\.value) == ["REDACTED", "REDACTED", "REDACTED", "REDACTED", "REDACTED", "bytes=0-1", "d"])
        #expect(r.fields.map(\.name) == h.fields.map(\.name))
    }
}

@Suite struct HostPolicyTests {
    @Test func loopbackNamesAndAddressesWithAnyPort() {
        let p = HostPolicy()
        for host in ["localhost", "LocalHost:8422", "localhost.", "127.0.0.1", "127.0.0.1:1", "127.255.3.4:80", "[::1]", "[::1]:8422",
                     "[0:0:0:0:0:0:0:1]", "[::ffff:127.0.0.1]:9"] {
            #expect(p.check([host], version: "HTTP/1.1") == .allowed, "\(host)")
        }
        for host in ["evil.example", "localhost.evil.example", "127.0.0.1.nip.io", "128.0.0.1", "[::2]", "0.0.0.0", "10.0.0.1:80"] {
            #expect(p.check([host], version: "HTTP/1.1") == .refused(HostPolicy.hostName(ofHeader: host)!), "\(host)")
        }
    }

    @Test func listedNamesMissingAndMalformed() {
        let p = HostPolicy(allowing: ["Media.LAN", "[fd00::5]", "192.168.1.9"])
        #expect(p.check(["media.lan:8422"], version: "HTTP/1.1") == .allowed)
        #expect(p.check(["[FD00::5]:1"], version: "HTTP/1.1") == .allowed)
        #expect(p.check(["192.168.1.9"], version: "HTTP/1.1") == .allowed)
        #expect(p.check(["media.lan.evil"], version: "HTTP/1.1") == .refused("media.lan.evil"))
        #expect(p.check([], version: "HTTP/1.1") == .missingOrRepeated)
        #expect(p.check([], version: "HTTP/1.0") == .allowed)
        #expect(p.check(["localhost", "localhost"], version: "HTTP/1.1") == .missingOrRepeated)
        for bad in ["", "a b", "host:port", "host:123456", "[::1", "[nope]:80", "h/x", "h@x", "é.example"] {
            #expect(p.check([bad], version: "HTTP/1.1") == .malformed, "\(bad)")
        }
        #expect(HostPolicy.normalizedName("box:8421") == nil)
        #expect(HostPolicy.normalizedName("::1") == "::1")
    }
}

@Suite struct LogTextTests {
    @Test func controlBytesSpacesAndNonASCIIAreEscaped() {
        #expect(LogText.escaped("/a b\r\n\u{1b}[31m\u{7f}\u{85}é%0d") == "/a%20b%0D%0A%1B[31m%7F%C2%85%C3%A9%0d")
        #expect(LogText.escaped("/plain/path.mp4?x=1") == "/plain/path.mp4?x=1")
        #expect(LogText.escaped(String(repeating: "a", count: 20), maxBytes: 5) == "aaaaa...")
    }
}
