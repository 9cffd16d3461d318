import Foundation
import Testing

/// litmus (Debian), the WebDAV conformance suite, against the server: basic, copymove, props and locks.
@Suite struct LitmusTests {
    static func runLitmus(_ f: ServerFixture, suite: String) throws -> (output: String, status: Int32) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/litmus")
        p.arguments = [f.url("/dav/"), "litmus", ServerFixture.token]
        var env = ProcessInfo.processInfo.environment
        env["TESTS"] = suite
        p.environment = env
        p.currentDirectoryURL = f.root.deletingLastPathComponent()
        let out = Pipe()
        p.standardOutput = out
        p.standardError = out
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (String(decoding: data, as: UTF8.self), p.terminationStatus)
    }

    @Test(arguments: ["basic", "copymove", "props", "locks"])
    func litmusSuitePasses(_ suite: String) throws {
        let f = try ServerFixture()
        let r = try Self.runLitmus(f, suite: suite)
        let summary = r.output.components(separatedBy: "\n").filter { $0.contains("summary for") }
        #expect(summary.count == 1, Comment(rawValue: r.output))
        #expect(summary.first?.contains(" 0 failed") == true, Comment(rawValue: r.output))
        #expect(r.status == 0, Comment(rawValue: r.output))
    }
}
