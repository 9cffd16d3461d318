import Foundation
import SkyliftSystem
import TestProbes
import Testing

@Suite struct PrivateFilesTests {
    func mode(_ path: String) throws -> Int {
        try #require(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
    }

    @Test func createdWithTheirFinalMode() throws {
        // Not made here: AtomicFile makes it, with its final mode.
        let scratch = try TempFolder("private", create: false), base = scratch.url.path
        try AtomicFile.replace(base + "/a/b/state.json", with: Array("one".utf8))
        #expect(try mode(base) == 0o700)
        #expect(try mode(base + "/a/b") == 0o700)
        #expect(try mode(base + "/a/b/state.json") == 0o600)
        try AtomicFile.replace(base + "/a/b/state.json", with: Array("two".utf8))
        #expect(try String(contentsOfFile: base + "/a/b/state.json", encoding: .utf8) == "two")
        #expect(try FileManager.default.contentsOfDirectory(atPath: base + "/a/b") == ["state.json"])

        #expect(try AtomicFile.createNew(base + "/token", with: Array("t1".utf8)))
        #expect(try !AtomicFile.createNew(base + "/token", with: Array("t2".utf8)))
        #expect(try String(contentsOfFile: base + "/token", encoding: .utf8) == "t1")
        #expect(try mode(base + "/token") == 0o600)
        try PrivateFiles.createEmpty(base + "/q.sqlite")
        #expect(try mode(base + "/q.sqlite") == 0o600)
        #expect(try PrivateFiles.readSecret(base + "/token") == Array("t1".utf8))
    }

    @Test func secretsOthersCanReadAreRefused() throws {
        let scratch = try TempFolder("private"), base = scratch.url
        let file = base.appendingPathComponent("t").path
        try Data("x".utf8).write(to: URL(fileURLWithPath: file))
        for loose in [0o644, 0o640, 0o604, 0o620, 0o602] {
            try FileManager.default.setAttributes([.posixPermissions: loose], ofItemAtPath: file)
            #expect(throws: FileError(path: file, reason: "other users can access it (mode \(String(loose, radix: 8))); run 'chmod 600 \(file)'")) {
                try PrivateFiles.readSecret(file)
            }
        }
        #expect(throws: FileError(path: base.path, reason: "not a regular file")) { try PrivateFiles.readSecret(base.path) }
    }
}
