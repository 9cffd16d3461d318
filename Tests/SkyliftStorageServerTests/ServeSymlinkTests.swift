import Foundation
import TestProbes
import Testing

/// Links and special files in the served tree, attacked through the real `skylift serve` process.
/// The rule under test: a link is followed only when it leads to a file or folder inside the root; any other
/// link, and any FIFO, socket or device, is invisible (404, left out of listings); DELETE, COPY and MOVE
/// never follow a link below the request path.
@Suite struct ServeSymlinkTests {
    @Test func deleteOfAFolderHoldingLinksRemovesTheLinksOnly() throws {
        let t = try HostileTree()
        try t.write("dir/a.txt", "a")
        try t.link("dir/out", to: t.outside.path)
        try t.link("dir/outfile", to: t.outside.appendingPathComponent("secret.txt").path)
        try t.link("dir/deeper", to: "../../outside")
        #expect(try t.send("DELETE", "dir").status == 204)
        #expect(!t.exists("dir"))
        try t.expectUnharmed()
    }

    @Test func aLinkTargetIsSplitAtEverySlashEvenBeforeACombiningMark() throws {
        // "/" and a combining mark after it are one Character: split by Character, "out/\u{0301}x.txt" stayed
        // one name, and openat walked through the link "out" to the outside folder (found by fuzzing).
        let t = try HostileTree()
        let hidden = "HIDDEN-" + UUID().uuidString
        try Data(hidden.utf8).write(to: t.outside.appendingPathComponent("\u{0301}x.txt"))
        try t.link("out", to: t.outside.path)
        try t.link("l.txt", to: "out/\u{0301}x.txt")
        let answer = try t.send("GET", "l.txt")
        #expect(answer.status == 404)
        #expect(!answer.body.contains(hidden))
    }

    @Test func deleteOfALinkRemovesTheLinkNeverTheTarget() throws {
        let t = try HostileTree()
        try t.write("sub/kept.txt", "kept")
        try t.link("inlink", to: t.file("sub").path)
        try t.link("outlink", to: t.outside.path)
        // A link out of the root is invisible: not there to delete, and left alone.
        #expect(try t.send("DELETE", "outlink").status == 404)
        #expect(t.exists("outlink"))
        #expect(try t.send("DELETE", "outlink/sub").status == 404)
        // A link inside the root is an entry of its own: DELETE takes the link away, the folder stays.
        #expect(try t.send("DELETE", "inlink").status == 204)
        #expect(!t.exists("inlink"))
        #expect(try String(contentsOf: t.file("sub/kept.txt"), encoding: .utf8) == "kept")
        try t.expectUnharmed()
    }

    @Test func writesNeverGoThroughALinkOutOfTheRoot() throws {
        let t = try HostileTree()
        try t.write("real.txt", "real")
        try t.link("alias.txt", to: "real.txt")
        try t.link("outdir", to: t.outside.path)
        try t.link("outfile", to: t.outside.appendingPathComponent("secret.txt").path)
        for path in ["outdir/new.txt", "outdir/secret.txt", "outfile", "outdir/sub/inner.txt"] {
            #expect(try t.send("PUT", path, body: "overwritten").status == 404, "PUT \(path)")
        }
        #expect(try t.send("MKCOL", "outdir/made").status == 404)
        #expect(try t.send("PROPPATCH", "outfile").status == 404)
        #expect(try t.send("LOCK", "outdir/sub").status == 404)
        // PUT on an inside link replaces the link with a file; the file it pointed at stays as it was.
        #expect(try t.send("PUT", "alias.txt", body: "overwritten").status == 204)
        #expect(try String(contentsOf: t.file("real.txt"), encoding: .utf8) == "real")
        #expect(try t.send("GET", "alias.txt").body == "overwritten")
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: t.file("alias.txt").path)) == nil)
        try t.expectUnharmed()
    }

    @Test func copyAndMoveWithOverwriteNeverFollowLinks() throws {
        let t = try HostileTree()
        try t.write("src/f.txt", "copied")
        try t.write("src/real.txt", "real")
        try t.link("src/out", to: t.outside.path)
        try t.link("src/outfile", to: t.outside.appendingPathComponent("secret.txt").path)
        try t.link("src/alias.txt", to: "real.txt")
        try t.write("dst/old.txt", "old")
        try t.link("dst/out", to: t.outside.path)
        try t.link("dst/outsub", to: t.outside.appendingPathComponent("sub").path)

        // COPY onto a folder holding links: the old folder goes (links unlinked, not followed), links are not copied.
        #expect(try t.send("COPY", "src", [t.destination("dst"), "Overwrite: T"]).status == 204)
        #expect(try String(contentsOf: t.file("dst/f.txt"), encoding: .utf8) == "copied")
        #expect(!t.exists("dst/old.txt") && !t.exists("dst/out") && !t.exists("dst/outsub"))
        #expect(!t.exists("dst/outfile") && !t.exists("dst/alias.txt"))
        #expect(try t.send("GET", "dst/outfile").status == 404)
        #expect(try t.send("GET", "dst/out/secret.txt").status == 404)

        // MOVE onto a folder holding links: the same, and the moved links stay links that lead nowhere visible.
        try t.write("dst2/old.txt", "old")
        try t.link("dst2/out", to: t.outside.path)
        #expect(try t.send("MOVE", "src", [t.destination("dst2"), "Overwrite: T"]).status == 204)
        #expect(!t.exists("src") && !t.exists("dst2/old.txt"))
        #expect(try t.send("GET", "dst2/outfile").status == 404)
        #expect(try t.send("GET", "dst2/out/sub/inner.txt").status == 404)
        #expect(try t.send("GET", "dst2/alias.txt").body == "real")

        // A link out of the root cannot be the source of a COPY or MOVE, nor reached through one.
        #expect(try t.send("COPY", "dst2/out", [t.destination("stolen")]).status == 404)
        #expect(try t.send("MOVE", "dst2/outfile", [t.destination("stolen.txt")]).status == 404)
        #expect(try t.send("COPY", "dst2/out/sub", [t.destination("stolen")]).status == 404)
        #expect(!t.exists("stolen") && !t.exists("stolen.txt"))
        // Nor the destination of one: the link stays, nothing is written through it.
        #expect(try t.send("COPY", "dst/f.txt", [t.destination("dst2/outfile"), "Overwrite: T"]).status == 403)
        #expect(try t.send("COPY", "dst", [t.destination("dst2/out"), "Overwrite: T"]).status == 403)
        try t.expectUnharmed()
    }

    @Test func copyThroughAnInsideLinkCannotCopyAFolderIntoItself() throws {
        let t = try HostileTree()
        try t.write("a/f.txt", "f")
        try t.link("toA", to: "a")
        #expect(try t.send("COPY", "toA", [t.destination("a/copy")]).status == 403)
        #expect(try t.send("COPY", "a/f.txt", [t.destination("toA/f.txt"), "Overwrite: T"]).status == 403)
        #expect(try String(contentsOf: t.file("a/f.txt"), encoding: .utf8) == "f")
        #expect(!t.exists("a/copy"))
        try t.expectUnharmed()
    }

    @Test func fifoIsNotServedAndNeverBlocks() throws {
        let t = try HostileTree()
        #expect(mkfifo(t.file("pipe").path, 0o644) == 0)
        try t.link("pipelink", to: "pipe")
        for method in ["GET", "HEAD"] {
            #expect(try t.send(method, "pipe").status == 404)
            #expect(try t.send(method, "pipelink").status == 404)
        }
        #expect(try t.send("COPY", "pipe", [t.destination("copied")]).status == 404)
        #expect(!t.exists("copied"))
        let listing = try t.send("GET", "")
        #expect(listing.status == 200 && !listing.body.contains("pipe"))
        let propfind = try t.send("PROPFIND", "", ["Depth: 1"])
        #expect(propfind.status == 207 && !propfind.body.contains("pipe"))
        // A FIFO where the server keeps a file's dead properties is ignored, not waited on.
        try t.write("props.txt", "p")
        #expect(mkfifo(t.file(".skylift-props.props.txt").path, 0o644) == 0)
        #expect(try t.send("PROPFIND", "props.txt", ["Depth: 0"]).status == 207)
        try t.expectUnharmed()
    }

    @Test func linksOutOfTheRootAreInvisibleToGet() throws {
        let t = try HostileTree()
        try t.write("real.txt", "real")
        try t.link("leak.txt", to: t.outside.appendingPathComponent("secret.txt").path)
        try t.link("leakdir", to: t.outside.path)
        try t.link("relative.txt", to: "../outside/secret.txt")
        try t.link("alias.txt", to: "real.txt")
        // The server's own state is off limits through a link too.
        try t.link("state", to: ".skylift-uploads")
        for path in ["leak.txt", "leakdir/secret.txt", "leakdir/sub/inner.txt", "leakdir/", "relative.txt", "state/"] {
            #expect(try t.send("GET", path).status == 404, "GET \(path)")
            #expect(try t.send("GET", path, ["Range: bytes=0-3"]).status == 404, "ranged GET \(path)")
            #expect(try t.send("HEAD", path).status == 404, "HEAD \(path)")
        }
        // A link that stays inside the root serves its target.
        #expect(try t.send("GET", "alias.txt").body == "real")
        try t.expectUnharmed()
    }

    @Test func listingAndPropfindShowOnlyWhatIsServed() throws {
        let t = try HostileTree()
        try t.write("real.txt", "real")
        try t.write("folder/x.txt", "x")
        try t.link("leak.txt", to: t.outside.appendingPathComponent("secret.txt").path)
        try t.link("leakdir", to: t.outside.path)
        try t.link("dangling", to: "nothing-here")
        try t.link("loop", to: "loop")
        try t.link("alias.txt", to: "real.txt")
        try t.link("folderlink", to: "folder")
        #expect(mkfifo(t.file("pipe").path, 0o644) == 0)
        let hidden = ["leak.txt", "leakdir", "dangling", "loop", "pipe"]
        let listing = try t.send("GET", "")
        #expect(listing.status == 200)
        let propfind = try t.send("PROPFIND", "", ["Depth: 1"])
        #expect(propfind.status == 207)
        // The HTML index links relatively (./name), PROPFIND with absolute hrefs.
        for (body, prefix) in [(listing.body, "./"), (propfind.body, "/dav/")] {
            for name in hidden { #expect(!body.contains(prefix + name), "\(name) shown") }
            for name in ["real.txt", "folder/", "alias.txt", "folderlink/"] { #expect(body.contains(prefix + name), "\(name) missing") }
        }
        #expect(try t.send("PROPFIND", "leakdir", ["Depth: 0"]).status == 404)
        #expect(try t.send("GET", "folderlink/x.txt").body == "x")
        try t.expectUnharmed()
    }
}
