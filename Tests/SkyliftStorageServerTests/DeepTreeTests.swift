import Foundation
import TestPrograms
import Testing
@testable import SkyliftStorageServer

/// Folders nested in the served tree deeper than anyone's photos: COPY, DELETE and `?zip` walk a folder's whole
/// tree, and stop at ``FileSystem/maxTreeDepth`` levels with an answer that says so, instead of recursing (and
/// holding folder descriptors) as deep as the tree goes. Found with a 100,000-deep chain: DELETE and COPY failed
/// on the descriptor limit, and a zip of it ran for over a minute.
@Suite struct DeepTreeTests {
    /// `levels` folders named `a` below `top`, with a file in the last one.
    static func chain(_ f: ServerFixture, _ top: String, levels: Int) throws {
        let bottom = f.file(top + String(repeating: "/a", count: levels))
        try FileManager.default.createDirectory(at: bottom, withIntermediateDirectories: true)
        try Data("leaf".utf8).write(to: bottom.appendingPathComponent("leaf.txt"))
    }

    static let limit = FileSystem.maxTreeDepth

    /// DELETE takes the whole entry out of the tree in one rename, so even a tree deeper than the walk goes is
    /// gone at once for every reader; what the walk cannot reach stays under a hidden name, never half visible.
    @Test func deleteTakesATreeTooDeepOutWholeAndKeepsItsDepthHidden() throws {
        let f = try ServerFixture()
        try Self.chain(f, "deep", levels: Self.limit + 1)
        #expect(try Curl.run(["-X", "DELETE", f.url("/dav/deep/")]).status == 204)
        #expect(!FileManager.default.fileExists(atPath: f.file("deep").path))
        #expect(try Curl.run([f.url("/dav/deep/a/")]).status == 404)
        let listing = try Curl.run(["-X", "PROPFIND", "-H", "Depth: 1", f.url("/dav/")])
        #expect(listing.status == 207 && !listing.text.contains("deep") && !listing.text.contains(".skylift-"), "\(listing.text)")

        try Self.chain(f, "fits", levels: Self.limit)
        #expect(try Curl.run(["-X", "DELETE", f.url("/dav/fits/")]).status == 204)
        #expect(!FileManager.default.fileExists(atPath: f.file("fits").path))
        let left = try FileManager.default.contentsOfDirectory(atPath: f.root.path).filter { $0.hasPrefix(".skylift-trash") }
        #expect(left.count == 1, "only the tree too deep to walk stays hidden: \(left)")
    }

    @Test func copyRefusesATreeTooDeepAndLeavesNoHalfCopy() throws {
        let f = try ServerFixture()
        try Self.chain(f, "deep", levels: Self.limit + 1)
        let refused = try Curl.run(["-X", "COPY", "-H", "Destination: \(f.url("/dav/copy/"))", f.url("/dav/deep/")])
        #expect(refused.status == 403)
        #expect(refused.text.contains("cannot COPY /deep: its folders nest deeper than \(Self.limit) levels"), "\(refused.text)")
        #expect(!FileManager.default.fileExists(atPath: f.file("copy").path))

        try Self.chain(f, "fits", levels: Self.limit)
        #expect(try Curl.run(["-X", "COPY", "-H", "Destination: \(f.url("/dav/copied/"))", f.url("/dav/fits/")]).status == 201)
        let leaf = f.file("copied" + String(repeating: "/a", count: Self.limit) + "/leaf.txt")
        #expect((try? Data(contentsOf: leaf)) == Data("leaf".utf8))
    }

    /// A zip has no way to report trouble once it streams: folders past the limit are left out of it.
    @Test func aFolderDownloadLeavesOutWhatLiesTooDeep() throws {
        let f = try ServerFixture()
        try Self.chain(f, "deep", levels: Self.limit + 1)
        try Data("top".utf8).write(to: f.file("deep/top.txt"))
        let zip = try Curl.run([f.url("/dav/deep/?zip")])
        #expect(zip.status == 200)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("skylift-deep-\(UUID().uuidString).zip")
        try Data(zip.body).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let script = """
        import sys, zipfile
        names = zipfile.ZipFile(sys.argv[1]).namelist()
        print(len(names), max(n.rstrip('/').count('/') + 1 for n in names), 'top.txt' in names, any(n.endswith('leaf.txt') for n in names))
        """
        let out = try TestPrograms.runPython(script, [file.path])
        // top.txt and the folders a, a/a, ... down to `limit` levels; not the one below, nor its file.
        #expect(out == "\(Self.limit + 1) \(Self.limit) True False", "\(out)")
    }
}
