import Foundation
@testable import SkyliftCLI
import Testing
import TestProbes

/// Names and messages from outside reach the terminal with their control characters shown, not obeyed.
@Suite struct TerminalTextTests {
    @Test func controlCharactersAreShownAsEscapes() {
        #expect(TerminalText.safe("plain Ürlaub 2026.jpg") == "plain Ürlaub 2026.jpg")
        #expect(TerminalText.safe("a\u{1B}]0;owned\u{07}b") == "a\\x1b]0;owned\\x07b")
        #expect(TerminalText.safe("\u{9B}31m\u{7F}\r") == "\\x9b31m\\x7f\\x0d")
        #expect(TerminalText.safe("two\nlines\tand a tab") == "two\nlines\tand a tab")
        #expect(TerminalText.safe("\u{0}") == "\\x00")
    }

    /// A file named to retitle the window and clear the screen, found by `scrub`: the report names it, escaped.
    @Test func aHostileFileNameInAScrubReportIsNotObeyed() async throws {
        let scratch = try TempFolder("terminal-text")
        let evil = "clip\u{1B}]0;owned\u{07}\u{1B}[2J.mp4"
        try Data("x".utf8).write(to: scratch.url.appendingPathComponent(evil))
        let r = await runSkylift(["scrub", "--root", scratch.url.path, "--no-record"])
        #expect(r.status == 0, "\(r.err)")
        #expect(r.out.contains("unrecorded: clip\\x1b]0;owned\\x07\\x1b[2J.mp4"), "\(r.out)")
        #expect(!r.out.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 })
    }
}
