import Foundation
import SkyliftSystem
import TestProbes
import Testing

@Suite struct AtomicFileTests {
    /// Made by the code under test (or the test); one per test, removed after it.
    let scratch: TempFolder
    var base: String { scratch.url.path }

    init() throws {
        scratch = try TempFolder("atomic", create: false)
    }

    func mode(_ path: String) throws -> Int {
        try #require(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
    }

    @Test func replacesWithTheGivenModeAndLeavesNoTempFile() throws {
        try AtomicFile.replace(base + "/props", with: Array("one".utf8), permissions: 0o644)
        try AtomicFile.replace(base + "/props", with: Array("two".utf8), permissions: 0o644)
        #expect(try String(contentsOfFile: base + "/props", encoding: .utf8) == "two")
        #expect(try mode(base + "/props") & 0o600 == 0o600)
        #expect(try FileManager.default.contentsOfDirectory(atPath: base) == ["props"])
    }

    @Test func aLinkPlantedAtTheTempNameIsRemovedNotFollowed() throws {
        try PrivateFiles.createDirectory(base)
        let victim = base + "/victim"
        try Data("keep".utf8).write(to: URL(fileURLWithPath: victim))
        try FileManager.default.createSymbolicLink(atPath: base + "/info.tmp", withDestinationPath: victim)
        try AtomicFile.replace(base + "/info", with: Array("new".utf8), temporary: base + "/info.tmp")
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "keep")
        #expect(try String(contentsOfFile: base + "/info", encoding: .utf8) == "new")
        #expect(!FileManager.default.fileExists(atPath: base + "/info.tmp"))
    }

    @Test func aFailedRenameKeepsTheOldContentAndRemovesTheTempFile() throws {
        // A non-empty folder at the target: rename(2) refuses to replace it.
        try FileManager.default.createDirectory(atPath: base + "/state/inner", withIntermediateDirectories: true)
        #expect(throws: FileError.self) { try AtomicFile.replace(base + "/state", with: Array("x".utf8)) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: base) == ["state"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: base + "/state") == ["inner"])
    }

    @Test func errorsNameTheCallThePathAndTheErrno() throws {
        let missing = base + "/nowhere/file"
        do {
            _ = try FileDescriptor.open(missing, .readOnly)
            Issue.record("opened a missing file")
        } catch {
            #expect(error == FileError(call: "open", path: missing, errno: .noSuchFile))
            #expect(error.description == "\(missing): open failed: No such file or directory")
        }
    }
}
