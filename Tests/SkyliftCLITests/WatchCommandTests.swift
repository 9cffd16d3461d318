import SkyliftAutoUpload
import SkyliftFolderWatch
import Foundation
import SkyliftStorageServer
import Synchronization
import TestProbes
import Testing

@Suite(.serialized) struct WatchCommandTests {
    @Test func watchHelp() async {
        let r = await runSkylift(["watch", "--help"])
        #expect(r.status == 0)
        #expect(r.out == """
        usage: skylift watch DIR [--to URL] [--token-file FILE | --token TOKEN] [--settle SECONDS] [--max-wait SECONDS] [--ignore GLOB]... [--jobs N] [--parts N] [--state DIR] [--part-size SIZE] [--json] [--mirror-deletes] [--ca-cert FILE | --pin-sha256 PIN] [--s3-endpoint URL] [--s3-addressing MODE]

        Watch DIR (recursively) and upload each file once it has been quiet for --settle seconds
        and two checks of its size, mtime and inode agree; DIR/a/b.jpg goes to URL/a/b.jpg.
        Progress survives crashes and restarts: the queue lives in SQLite under --state, uploads
        resume from the server's offset, and a start-up scan finds what changed meanwhile.
        Without --to, the embedded cloud is started in this process with its default store
        (as `skylift serve` would) and its URL and token are printed. A file or folder moved
        inside DIR is moved on the remote too, not uploaded again (where the destination cannot
        move, its copy keeps its old name); deletions are only propagated with
        --mirror-deletes. Dotfiles, *.part, *.tmp, *.crdownload, *~ and *.swp are ignored.
        SIGINT/SIGTERM pause uploads where they can resume and exit 0.

        options:
          --to URL              destination folder (tus, WebDAV or s3://bucket/prefix/); default: the embedded cloud
          --token TOKEN         bearer token for --to (default: $SKYLIFT_TOKEN)
          --token-file FILE     read the token from FILE (mode 0600; unlike --token, not visible in ps)
          --settle SECONDS      quiet time before a file is uploaded (default: 2)
          --max-wait SECONDS    upload a file that never stops changing after this long (default: 60)
          --ignore GLOB         also ignore matching names (or paths, if GLOB has a /) (repeatable)
          --jobs N              uploads at once (default: 2)
          --parts N             parts of one file in flight: S3 multipart (default: 4), tus concatenation where offered (default: 1)
          --state DIR           queue and resume state (default: $XDG_STATE_HOME/skylift/watch/<id of DIR>)
          --part-size SIZE      tus PATCH size if the server lacks block-checksum, e.g. 16M (default: 64M), or S3 part (at least 5M; default: sized to the file)
          --json                one JSON object per event on stdout
          --mirror-deletes      delete the remote copy when a file is deleted
          --ca-cert FILE        trust an HTTPS server whose certificate is in FILE (PEM) or signed by one there
          --pin-sha256 PIN      trust the HTTPS server with this public key, as 'serve' prints (sha256//BASE64)
          --s3-endpoint URL     S3 service for s3:// locations (default: $AWS_ENDPOINT_URL, else AWS)
          --s3-addressing MODE  path, virtual or auto: bucket in the URL path or host (default: auto)
          --help                show this help and exit

        examples:
          skylift watch ~/Pictures
          skylift watch /srv/camera --to https://cloud.example/dav/camera/ --token "$TOKEN" --settle 5
          skylift watch /srv/camera --to s3://media/camera/ --s3-endpoint http://127.0.0.1:9000

        """)
    }

    @Test func statusHelp() async {
        let r = await runSkylift(["status", "--help"])
        #expect(r.status == 0)
        #expect(r.out == """
        usage: skylift status [--state DIR] [--root DIR | --root s3://BUCKET/PREFIX/] [--json] [--s3-endpoint URL] [--s3-addressing MODE]

        Show what `skylift watch` has queued: how many files are pending, uploading, waiting
        (for space on a full server), done and failed, the uploads in flight with their progress,
        the files waiting for space with what the server kept, and the latest errors. Reads the
        queue without disturbing a running agent. Without --state, every watched folder under
        $XDG_STATE_HOME/skylift/watch is shown. Then, for the store given with --root (without
        --state, also the default store when it exists), when it was last checked by `skylift
        scrub` and what that found; an s3://bucket/prefix/ store's report is read from its bucket.

        options:
          --state DIR           the state folder given to `skylift watch --state`
          --root DIR            also show the last scrub of this store (a folder or s3://bucket/prefix/)
          --json                print one JSON object per watched folder (and per store)
          --s3-endpoint URL     S3 service for s3:// locations (default: $AWS_ENDPOINT_URL, else AWS)
          --s3-addressing MODE  path, virtual or auto: bucket in the URL path or host (default: auto)
          --help                show this help and exit

        examples:
          skylift status
          skylift status --root s3://media/cloud/ --s3-endpoint http://127.0.0.1:7480

        """)
    }

    @Test func badInputIsNamed() async throws {
        let cloud = try WatchCloud()
        let missing = cloud.base.appendingPathComponent("nope").path
        var r = await runSkylift(["watch", missing, "--to", cloud.url])
        #expect(r.status == 1)
        #expect(r.err == "skylift watch: \(missing) does not exist\n")
        let file = cloud.base.appendingPathComponent("file.txt")
        try Data("x".utf8).write(to: file)
        r = await runSkylift(["watch", file.path, "--to", cloud.url])
        #expect(r.status == 1)
        #expect(r.err == "skylift watch: \(file.path) is not a directory\n")
        r = await runSkylift(["watch", cloud.dir.path, "--to", "ftp://x/"])
        #expect(r.status == 2)
        #expect(r.err.contains("'--to'") && r.err.contains("ftp://x/"))
        r = await runSkylift(["watch", cloud.dir.path, "--settle", "soon"])
        #expect(r.status == 2 && r.err.contains("'--settle'"))
        r = await runSkylift(["watch", cloud.dir.path, "--ignore", "[abc"])
        #expect(r.status == 2 && r.err.contains("'--ignore'") && r.err.contains("[abc"))
        r = await runSkylift(["watch"])
        #expect(r.status == 2)
        // Credentials refused: a clear error, no retrying forever, and the token never echoed.
        r = await runSkylift(["watch", cloud.dir.path, "--to", cloud.url, "--token", "not-the-token", "--state", cloud.state.path])
        #expect(r.status == 1)
        #expect(r.err.contains("refused the credentials (HTTP 401)") && !r.err.contains("not-the-token"))
        // A state folder made for another folder.
        _ = try UploadQueue(stateDirectory: cloud.state, root: "/elsewhere")
        r = await runSkylift(["watch", cloud.dir.path, "--to", cloud.url, "--token", WatchCloud.token, "--state", cloud.state.path])
        #expect(r.status == 1)
        #expect(r.err.contains("'/elsewhere'") && r.err.contains("'\(cloud.dir.path)'") && r.err.contains(cloud.state.path))
        r = await runSkylift(["status", "--state", missing])
        #expect(r.status == 1 && r.err.contains(missing))
    }

    @Test func movesInsideTheFolderAreMovedOnTheServerWithNoUpload() async throws {
        let cloud = try WatchCloud()
        try FileManager.default.createDirectory(at: cloud.dir.appendingPathComponent("trip/day1"), withIntermediateDirectories: true)
        let clip = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 13) })
        try clip.write(to: cloud.dir.appendingPathComponent("trip/day1/clip.mov"))
        try Data("loose".utf8).write(to: cloud.dir.appendingPathComponent("loose.txt"))
        let watch = try cloud.watch()
        var uploaded: Set<String> = []
        while uploaded != ["trip/day1/clip.mov", "loose.txt"], let e = watch.await("uploaded") { uploaded.insert(e["path"] as? String ?? "") }
        let writes = ["POST", "PATCH", "PUT"].map(cloud.count).reduce(0, +)

        try FileManager.default.moveItem(at: cloud.dir.appendingPathComponent("trip"), to: cloud.dir.appendingPathComponent("trip 2026"))
        #expect(watch.await("moved") { $0["to"] as? String == "trip 2026" }?["remote_moved"] as? Bool == true)
        try FileManager.default.moveItem(at: cloud.dir.appendingPathComponent("loose.txt"),
                                         to: cloud.dir.appendingPathComponent("trip 2026/day1/loose.txt"))
        #expect(watch.await("moved") { $0["to"] as? String == "trip 2026/day1/loose.txt" }?["remote_moved"] as? Bool == true)
        #expect(watch.stop() == 0)
        #expect(!watch.remaining().contains { $0["event"] as? String == "uploading" })

        #expect(["POST", "PATCH", "PUT"].map(cloud.count).reduce(0, +) == writes)
        #expect(cloud.count("MOVE") == 2)
        #expect(try Data(contentsOf: cloud.stored("trip 2026/day1/clip.mov")) == clip)
        #expect(try String(contentsOf: cloud.stored("trip 2026/day1/loose.txt"), encoding: .utf8) == "loose")
        #expect(!FileManager.default.fileExists(atPath: cloud.stored("trip").path))
        #expect(!FileManager.default.fileExists(atPath: cloud.stored("loose.txt").path))
    }

    @Test func killNineMidUploadThenRestartUploadsEachFileOnce() async throws {
        let cloud = try WatchCloud()
        let size = 24 << 20
        let big = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 13) }
        try Data(big).write(to: cloud.dir.appendingPathComponent("big.bin"))
        let first = try cloud.watch()
        // kill -9 once the server has kept the first block of the one streamed PATCH: certainly mid-upload.
        let held = cloud.waitForHeldBlock()
        kill(first.process.processIdentifier, SIGKILL)
        first.process.waitUntilExit()
        try #require(held, "the server never held a block of big.bin")
        #expect(first.process.terminationReason == .uncaughtSignal)
        #expect(!FileManager.default.fileExists(atPath: cloud.stored("big.bin").path))

        // While the agent is down: a new file in a new folder.
        try FileManager.default.createDirectory(at: cloud.dir.appendingPathComponent("later"), withIntermediateDirectories: true)
        try Data("added while stopped".utf8).write(to: cloud.dir.appendingPathComponent("later/note.txt"))

        let second = try cloud.watch()
        let resumed = try #require(second.await("resumed") { $0["path"] as? String == "big.bin" })
        let from = (resumed["from"] as? NSNumber)?.int64Value ?? 0
        #expect(from >= 2 << 20 && from < Int64(size))
        var uploaded: Set<String> = []
        while uploaded != ["big.bin", "later/note.txt"], let e = second.await("uploaded") {
            uploaded.insert(e["path"] as? String ?? "")
        }
        #expect(uploaded == ["big.bin", "later/note.txt"])
        #expect(second.stop(SIGTERM) == 0)
        #expect(try Data(contentsOf: cloud.stored("big.bin")) == Data(big))
        #expect(try String(contentsOf: cloud.stored("later/note.txt"), encoding: .utf8) == "added while stopped")
        // One tus creation per file: the killed upload was resumed, not started over.
        #expect(cloud.count("POST") == 2)

        let status = await runSkylift(["status", "--state", cloud.state.path])
        #expect(status.status == 0)
        #expect(status.out == """
        \(cloud.dir.path) (state \(cloud.state.path))
          pending 0  uploading 0  waiting 0  done 2  failed 0

        """)
    }

    @Test func sigtermMidUploadPausesAndExitsZero() async throws {
        let cloud = try WatchCloud()
        let size = 16 << 20
        try Data(count: size).write(to: cloud.dir.appendingPathComponent("zeros.bin"))
        let agent = try cloud.watch()
        let progress = agent.await("progress") { e in ((e["sent"] as? NSNumber)?.int64Value ?? 0) > 0 }
        #expect(progress != nil)
        #expect(agent.stop(SIGTERM) == 0)
        let status = await runSkylift(["status", "--state", cloud.state.path, "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(status.out.utf8)) as? [String: Any])
        let counts = try #require(object["counts"] as? [String: Int])
        // Either it finished before the signal, or it waits, resumable, for the next start.
        #expect(counts["done"] == 1 || counts["pending"] == 1)
        #expect(counts["uploading"] == 0)
    }

    @Test func statusShowsCountsProgressAndErrors() async throws {
        let scratch = try TempFolder("watch-status", create: false), state = scratch.url
        let queue = try UploadQueue(stateDirectory: state, root: "/media/camera")
        for (name, size) in [("a/clip.mov", Int64(4 << 20)), ("b.jpg", 2048), ("c.jpg", 10)] {
            try await queue.enqueue(FileSnapshot(path: name, size: size, mtimeNanoseconds: 1, inode: UInt64(size)))
        }
        _ = try await queue.claimNext()  // a/clip.mov
        queue.recordProgress("a/clip.mov", uploadURL: "http://127.0.0.1:1/uploads/x", sent: 1 << 20)
        _ = try await queue.claimNext()  // b.jpg
        try await queue.markFailed("b.jpg", reason: "HTTP 507 from http://127.0.0.1:1/dav/b.jpg", retryAt: 0)
        let r = await runSkylift(["status", "--state", state.path])
        #expect(r.status == 0)
        #expect(r.out == """
        /media/camera (state \(state.path))
          pending 1  uploading 1  waiting 0  done 0  failed 1
          in flight:
            a/clip.mov  1.0 MiB of 4.0 MiB (25%)
          last errors:
            b.jpg: HTTP 507 from http://127.0.0.1:1/dav/b.jpg (retry in 0 s)

        """)
        let json = await runSkylift(["status", "--state", state.path, "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.out.utf8)) as? [String: Any])
        #expect(object["dir"] as? String == "/media/camera")
        #expect((object["in_flight"] as? [[String: Any]])?.first?["sent"] as? Int == 1 << 20)
    }

    @Test func withoutDestinationTheEmbeddedCloudIsUsed() async throws {
        let scratch = try TempFolder("watch-home"), home = scratch.url
        let dir = try scratch.folder("Pictures")
        try Data("photo".utf8).write(to: dir.appendingPathComponent("p.jpg"))
        let agent = try WatchProcess([dir.path, "--json", "--settle", "0.2"], environment: ["HOME": home.path, "PATH": "/usr/bin:/bin"])
        let embedded = try #require(agent.await("embedded"))
        let store = home.appendingPathComponent(".local/share/skylift/store")
        #expect(embedded["store"] as? String == store.path)
        #expect((embedded["url"] as? String)?.hasPrefix("http://127.0.0.1:") == true)
        let token = try String(contentsOf: home.appendingPathComponent(".local/share/skylift/store.token"), encoding: .utf8)
        #expect(embedded["token"] as? String == token.trimmingCharacters(in: .whitespacesAndNewlines))
        // The sign-in link holds a one-time code, never the token.
        let open = try #require(embedded["open"] as? String)
        #expect(open.contains("/signin?code=") && !open.contains(token.trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(agent.await("uploaded") { $0["path"] as? String == "p.jpg" } != nil)
        #expect(agent.stop(SIGINT) == 0)
        #expect(try String(contentsOf: store.appendingPathComponent("p.jpg"), encoding: .utf8) == "photo")
        let status = await runSkylift(["status"], environment: ["HOME": home.path])
        #expect(status.out.hasPrefix("\(dir.path) (state \(home.path)/.local/state/skylift/watch/"))
        #expect(status.out.contains("done 1"))
    }
}
