import Foundation
import TestProbes
import Testing
import TestPrograms

/// A `skylift serve` over HTTPS on loopback with a temp root, and what it printed at start.
final class TLSCloud {
    let dir: URL
    let root: URL
    let token = "tls-test-token"
    let serve: ServeProcess
    let url: String
    let fingerprint: String
    let pin: String
    let lines: [String]

    /// `tls`: `["--tls-self-signed"]` or `["--tls-cert", C, "--tls-key", K]`; `dir` is reused across restarts.
    init(dir: URL, tls: [String]) throws {
        self.dir = dir
        root = dir.appendingPathComponent("root")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        serve = try ServeProcess(["--root", root.path, "--listen", "127.0.0.1:0", "--token", token, "--quiet"] + tls,
                                 environment: ["PATH": "/usr/bin:/bin"])
        let printed = serve.lines(7)
        lines = printed
        let field = { (prefix: String) -> String in
            printed.first { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) } ?? ""
        }
        url = field("  url:   ")
        fingerprint = field("  sha256 fingerprint: ")
        pin = field("  pin:   --pin-sha256 ")
    }

    var certificate: URL { dir.appendingPathComponent("root.tls-cert.pem") }
    var key: URL { dir.appendingPathComponent("root.tls-key.pem") }

    /// `curl` against the server; the HTTP status, "000" when no connection was made.
    func status(_ path: String, _ args: [String]) throws -> String {
        try curlStatus(args + ["-H", "Authorization: Bearer \(token)", url + path])
    }

    func upload(_ file: URL, extra: [String]) throws -> (events: [[String: Any]], status: Int32, errors: String) {
        let p = try TransferProcess(["upload", file.path, "--to", url, "--token", token, "--json",
                                     "--state", dir.appendingPathComponent("state").path] + extra)
        let (events, status) = p.finish()
        return (events, status, p.errorText)
    }

    func stop() { _ = serve.terminate() }
}

/// Runs openssl (Debian `openssl`) with `args`; its exit status and stdout.
func openssl(_ args: [String]) throws -> (status: Int32, out: String) {
    try runForOutput(try TestPrograms.path("openssl"), args)
}

@Suite struct ServeTLSTests {
    @Test func selfSignedCertificateIsMadeOnceAndTrustedByItsFileOrPin() throws {
        let scratch = try TempFolder("tls"), dir = scratch.url
        let cloud = try TLSCloud(dir: dir, tls: ["--tls-self-signed"])
        #expect(cloud.url.hasPrefix("https://127.0.0.1:") && cloud.url.hasSuffix("/dav/"), "\(cloud.lines)")
        #expect(cloud.lines.contains { $0.hasPrefix("  open:  https://127.0.0.1:") })
        #expect(cloud.pin.hasPrefix("sha256//"), "\(cloud.lines)")
        let mode = try FileManager.default.attributesOfItem(atPath: cloud.key.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)

        // openssl computes the same fingerprint from the saved certificate, and sees the loopback names in it.
        let x509 = try openssl(["x509", "-in", cloud.certificate.path, "-noout", "-fingerprint", "-sha256", "-ext", "subjectAltName"])
        #expect(x509.out.contains("Fingerprint=\(cloud.fingerprint)"), "\(x509.out) vs \(cloud.fingerprint)")
        #expect(x509.out.contains("DNS:localhost") && x509.out.contains("IP Address:127.0.0.1"), "\(x509.out)")

        // curl trusts it through the certificate file or the printed pin, and refuses it with neither.
        #expect(try cloud.status("hello.txt", ["--cacert", cloud.certificate.path, "-X", "PUT", "--data-binary", "hi"]) == "201")
        #expect(try cloud.status("hello.txt", ["--cacert", cloud.certificate.path]) == "200")
        #expect(try cloud.status("hello.txt", ["--pinnedpubkey", cloud.pin, "-k"]) == "200")
        #expect(try cloud.status("hello.txt", []) == "000")
        #expect(try cloud.status("hello.txt", ["--cacert", cloud.certificate.path, "--pinnedpubkey",
                                               "sha256//AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="]) == "000")

        // The sign-in link sets a Secure cookie over TLS.
        let signIn = try runForOutput(try TestPrograms.path("curl"), ["-s", "-i", "--cacert", cloud.certificate.path,
                                                             cloud.url.replacingOccurrences(of: "/dav/", with: "/?token=\(cloud.token)")])
        let cookie = signIn.out.split(whereSeparator: \.isNewline).first { $0.lowercased().hasPrefix("set-cookie:") } ?? ""
        #expect(cookie.contains("HttpOnly") && cookie.contains("; Secure"), "\(signIn.out)")

        // skylift upload with the printed pin works; a wrong pin is refused, and the error names it.
        let file = dir.appendingPathComponent("clip.bin")
        let bytes = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        try Data(bytes).write(to: file)
        let good = try cloud.upload(file, extra: ["--pin-sha256", cloud.pin])
        #expect(good.status == 0, "\(good.errors)")
        #expect(try Data(contentsOf: cloud.root.appendingPathComponent("clip.bin")) == Data(bytes))
        let wrongPin = "sha256//" + Data(repeating: 7, count: 32).base64EncodedString()
        let bad = try cloud.upload(file, extra: ["--pin-sha256", wrongPin, "--force"])
        #expect(bad.status != 0)
        #expect(bad.errors.contains(wrongPin), "\(bad.errors)")
        let unpinned = try cloud.upload(file, extra: ["--force"])
        #expect(unpinned.status != 0)
        cloud.stop()

        // A restart keeps the certificate: same fingerprint, same pin.
        let again = try TLSCloud(dir: dir, tls: ["--tls-self-signed"])
        defer { again.stop() }
        #expect(again.fingerprint == cloud.fingerprint && again.pin == cloud.pin, "\(again.lines)")
        #expect(again.lines.contains { $0.contains("(from \(cloud.certificate.path))") }, "\(again.lines)")
    }

    @Test func givenCertificateAndKeyServeHTTPSAndUploadTrustsTheCAFile() throws {
        let scratch = try TempFolder("tls"), dir = scratch.url
        let cert = dir.appendingPathComponent("cert.pem"), key = dir.appendingPathComponent("key.pem")
        let made = try openssl(["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key.path, "-out", cert.path,
                                "-days", "2", "-subj", "/CN=skylift test", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost"])
        #expect(made.status == 0)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: key.path)
        let expected = try openssl(["x509", "-in", cert.path, "-noout", "-fingerprint", "-sha256"]).out

        let cloud = try TLSCloud(dir: dir, tls: ["--tls-cert", cert.path, "--tls-key", key.path])
        defer { cloud.stop() }
        #expect(expected.hasSuffix("=" + cloud.fingerprint) && !cloud.fingerprint.isEmpty, "\(expected) vs \(cloud.lines)")
        #expect(try cloud.status("", ["--cacert", cert.path, "-X", "PROPFIND", "-H", "Depth: 0"]) == "207")
        #expect(try cloud.status("", []) == "000")

        let file = dir.appendingPathComponent("note.txt")
        try Data("over tls\n".utf8).write(to: file)
        let upload = try cloud.upload(file, extra: ["--ca-cert", cert.path])
        #expect(upload.status == 0, "\(upload.errors)")
        #expect(try String(contentsOf: cloud.root.appendingPathComponent("note.txt"), encoding: .utf8) == "over tls\n")
    }

    @Test func badTLSFilesAreRefusedByName() async throws {
        let scratch = try TempFolder("tls"), dir = scratch.url
        let cert = dir.appendingPathComponent("cert.pem"), key = dir.appendingPathComponent("key.pem")
        let other = dir.appendingPathComponent("other.pem")
        _ = try openssl(["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", key.path,
                         "-out", cert.path, "-days", "2", "-subj", "/CN=localhost"])
        _ = try openssl(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", other.path])
        for file in [key, other] { try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path) }
        let root = dir.appendingPathComponent("root")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let base = ["serve", "--root", root.path, "--listen", "127.0.0.1:0", "--token", "t"]

        let mismatched = await runSkylift(base + ["--tls-cert", cert.path, "--tls-key", other.path])
        #expect(mismatched.status != 0 && mismatched.err.contains(other.path) && mismatched.err.contains(cert.path), "\(mismatched.err)")
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: key.path)
        let open = await runSkylift(base + ["--tls-cert", cert.path, "--tls-key", key.path])
        #expect(open.status != 0 && open.err.contains(key.path) && open.err.contains("chmod 600"), "\(open.err)")
        let notCert = await runSkylift(base + ["--tls-cert", other.path, "--tls-key", other.path])
        #expect(notCert.status != 0 && notCert.err.contains("TLS certificate \(other.path)"), "\(notCert.err)")
        let alone = await runSkylift(base + ["--tls-cert", cert.path])
        #expect(alone.status != 0 && alone.err.contains("'--tls-cert' and '--tls-key' go together"), "\(alone.err)")
        let badPin = await runSkylift(["upload", cert.path, "--to", "https://127.0.0.1:1/dav/", "--pin-sha256", "nope"])
        #expect(badPin.status != 0 && badPin.err.contains("--pin-sha256"), "\(badPin.err)")
    }

    @Test func noWarningAboutClearTextWhenServingTLSOnTheNetwork() throws {
        let scratch = try TempFolder("tls"), dir = scratch.url
        let root = dir.appendingPathComponent("root")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let serve = try ServeProcess(["--root", root.path, "--listen", "0.0.0.0:0", "--token", "t", "--quiet", "--tls-self-signed"],
                                     environment: ["PATH": "/usr/bin:/bin"])
        let lines = serve.lines(7)
        _ = serve.terminate()
        let errors = String(decoding: serve.stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(lines.contains { $0.hasPrefix("  url:   https://0.0.0.0:") }, "\(lines)")
        #expect(!errors.contains("warning"), "\(errors)")
    }
}
