import Foundation
import Testing
import TestPrograms

/// litmus (Debian), the WebDAV conformance suite, against the server: basic, copymove, props and locks.
@Suite struct LitmusTests {
    static func runLitmus(_ f: ServerFixture, suite: String) throws -> (out: String, status: Int32) {
        // litmus writes debug.log and child.log into its working directory: give it a scratch one.
        try runTool(TestPrograms.path("litmus"), [f.url("/dav/"), "litmus", ServerFixture.token], environment: ["TESTS": suite],
                    directory: f.scratch)
    }

    @Test(arguments: ["basic", "copymove", "props", "locks"])
    func litmusSuitePasses(_ suite: String) throws {
        let f = try ServerFixture()
        let r = try Self.runLitmus(f, suite: suite)
        let summary = r.out.components(separatedBy: "\n").filter { $0.contains("summary for") }
        #expect(summary.count == 1, Comment(rawValue: r.out))
        #expect(summary.first?.contains(" 0 failed") == true, Comment(rawValue: r.out))
        #expect(r.status == 0, Comment(rawValue: r.out))
    }
}
