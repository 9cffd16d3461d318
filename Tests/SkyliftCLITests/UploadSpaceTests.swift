import Foundation
import SkyliftCore
import TestProbes
import Testing

/// `skylift upload` against `skylift serve` on a tmpfs that is full: a 507 stops the file (or, with
/// `--wait-for-space`, pauses it) with what the server kept, and nothing the server kept is sent again.
///
/// Works whether the server reads the refused body before answering 507 or answers before reading it: bytes are
/// counted by a relay and compared with bounds both ways meet; what the server kept is whole 4 MiB blocks either
/// way (possibly none).
@Suite(.serialized, .enabled(if: Tmpfs.available, "mounting a tmpfs needs root"))
struct UploadSpaceTests {
    static let total = Int64(10 << 20)
    static let block = Int64(4 << 20)

    /// A 12 MiB tmpfs already holding 6 MiB (the returned filler): a 10 MiB upload fits only once it is gone.
    static func fullCloud(accessLog: Bool = false) throws -> (cloud: CloudFixture, filler: URL) {
        let cloud = try CloudFixture(accessLog: accessLog, rootSize: "12m")
        let filler = cloud.root.appendingPathComponent("filler.bin")
        try Data(count: 6 << 20).write(to: filler)
        return (cloud, filler)
    }

    /// Uploads go through a relay counting what the client sends.
    static func countBytes(_ cloud: CloudFixture) throws -> FlipRelay {
        let relay = try FlipRelay(upstream: UInt16(URL(string: cloud.url)?.port ?? 0))
        cloud.relay = relay
        return relay
    }

    static func events(_ all: [[String: Any]], _ name: String) -> [[String: Any]] { all.filter { $0["event"] as? String == name } }

    /// The tus upload URL the run's resume record names; nil when there is none (the server refused the upload
    /// at creation, before a byte was sent).
    static func recordedUploadIfAny(_ cloud: CloudFixture) throws -> URL? {
        let records = cloud.dir.appendingPathComponent("state/uploads")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: records.path)) ?? []
        return names.contains { $0.hasSuffix(".json") } ? try recordedUpload(cloud) : nil
    }

    /// The tus upload URL the run's resume record names.
    static func recordedUpload(_ cloud: CloudFixture) throws -> URL {
        let records = cloud.dir.appendingPathComponent("state/uploads")
        let name = try #require(try FileManager.default.contentsOfDirectory(atPath: records.path).first { $0.hasSuffix(".json") })
        let record = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: records.appendingPathComponent(name))) as? [String: Any])
        return try #require((record["token"] as? String).flatMap(URL.init(string:)))
    }

    /// What the server holds of `upload` (tus HEAD).
    static func serverOffset(_ upload: URL, _ cloud: CloudFixture) throws -> Int64 {
        let head = try curlOutcome(["-I", "-H", "Tus-Resumable: 1.0.0", "-H", "Authorization: Bearer \(cloud.token)", upload.absoluteString])
        let line = head.headers.split(separator: "\r\n").first { $0.lowercased().hasPrefix("upload-offset:") }
        return try #require(line.flatMap { Int64($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) }, "\(head.headers)")
    }

    @Test func aFullServerStopsTheUploadWithWhatItKeptAndTheSameCommandContinuesIt() throws {
        let (cloud, filler) = try Self.fullCloud()
        let relay = try Self.countBytes(cloud)
        let file = try cloud.source("clip.bin", mib: 10)
        let (events, status) = try cloud.upload(file, folder: "s/").finish()
        #expect(status != 0)
        // Never more than the file (and its requests' heads) before the out-of-space report.
        #expect(relay.bytesSent <= Self.total * 11 / 10, "sent \(relay.bytesSent)")
        // The server keeps whole blocks (possibly none); progress never claimed the whole file and ends at most
        // at what the server holds.
        // A server that checks its free space refuses the upload at creation: nothing is kept, nothing recorded.
        let record = try Self.recordedUploadIfAny(cloud)
        let kept = try record.map { try Self.serverOffset($0, cloud) } ?? 0
        #expect(kept < Self.total && kept % Self.block == 0, "kept \(kept)")
        let progress = Self.events(events, "progress").map { int($0["bytes"]) }
        #expect(progress.allSatisfy { $0 < Self.total } && (progress.last ?? 0) <= kept, "progress \(progress), kept \(kept)")
        let failed = try #require(Self.events(events, "failed").last)
        let message = failed["error"] as? String ?? ""
        if record != nil {
            #expect(message == "\(file.path): server out of space: \(ByteCount.format(kept)) of 10.0 MiB kept on the server; "
                + "free space and run the same command again to continue, or add --cancel to discard it")
        } else {
            #expect(message.hasPrefix("\(file.path): server out of space: ") && message.contains("10.0 MiB"), "\(message)")
        }

        try FileManager.default.removeItem(at: filler)
        let before = relay.bytesSent
        let (again, againStatus) = try cloud.upload(file, folder: "s/").finish()
        #expect(againStatus == 0)
        if kept > 0 { #expect(Self.events(again, "resumed").map { int($0["from"]) } == [kept]) }
        let done = try #require(Self.events(again, "done").first)
        #expect(int(done["sent"]) == Self.total - kept, "\(again.compactMap { $0["event"] as? String })")
        #expect(relay.bytesSent - before <= Self.total - kept + (1 << 20), "the second run sent \(relay.bytesSent - before)")
        #expect(FileManager.default.contentsEqual(atPath: file.path, andPath: cloud.root.appendingPathComponent("s/clip.bin").path))
    }

    @Test func waitForSpaceWaitsAndContinuesFromWhatTheServerKept() throws {
        let (cloud, filler) = try Self.fullCloud()
        let relay = try Self.countBytes(cloud)
        let file = try cloud.source("clip.bin", mib: 10)
        // The first wait is 3 s instead of a minute; the filler goes well before it ends.
        let up = try TransferProcess(["upload", file.path, "--to", cloud.uploadBase + "w/", "--token", cloud.token, "--json",
                                      "--state", cloud.dir.appendingPathComponent("state").path, "--wait-for-space", "10m"],
                                     environment: ["PATH": "/usr/bin:/bin", "SKYLIFT_SPACE_BACKOFF": "3"])
        let waiting = try #require(up.event { $0["event"] as? String == "waiting" }, "no waiting event: \(up.errorText)")
        let kept = int(waiting["kept"])
        #expect(int(waiting["total"]) == Self.total && kept % Self.block == 0 && waiting["reason"] as? String == "server out of space")
        let before = relay.bytesSent
        try FileManager.default.removeItem(at: filler)
        let (events, status) = up.finish()
        #expect(status == 0, "\(up.errorText)")
        #expect(Self.events(events, "done").count == 1)
        if Self.events(events, "waiting").isEmpty {
            // Tried again once, with space: only what the server did not keep went.
            #expect(relay.bytesSent - before <= Self.total - kept + (1 << 20), "sent \(relay.bytesSent - before) after the wait")
        }
        #expect(FileManager.default.contentsEqual(atPath: file.path, andPath: cloud.root.appendingPathComponent("w/clip.bin").path))
    }

    /// `--cancel` right after the 507 while the server still holds a PATCH of that upload: the DELETE is refused with
    /// 423, tried again, and removes the upload once the PATCH ends.
    @Test func aDeleteRefusedWhileAPatchIsHeldIsTriedAgainUntilTheUploadIsGone() throws {
        // An upload left part-way: the client killed mid-body (a slowed relay), its resume record kept.
        let cloud = try CloudFixture(accessLog: true, rootSize: "32m")
        cloud.relay = try FlipRelay(upstream: UInt16(URL(string: cloud.url)?.port ?? 0), pause: 20_000)
        let file = try cloud.source("clip.bin", mib: 10)
        let first = try cloud.upload(file, folder: "c/")
        _ = first.event { $0["event"] as? String == "progress" && int($0["bytes"]) > 0 }
        first.kill9()
        let upload = try Self.recordedUpload(cloud)
        // The killed client's PATCH ends on the server once it sees the connection gone.
        var kept = try Self.serverOffset(upload, cloud)
        for _ in 0..<100 {
            usleep(100_000)
            let now = try Self.serverOffset(upload, cloud)
            if now == kept { break }
            kept = now
        }

        // A PATCH whose body stops coming: the server holds the upload until the connection closes. It declares
        // 1 MiB, which fits, so a server that refuses a body too large for its free space before reading still takes it.
        var held: RawConnection? = try RawConnection(port: UInt16(upload.port ?? 0))
        try held?.send("PATCH \(upload.path) HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(cloud.token)\r\nTus-Resumable: 1.0.0\r\n"
                       + "Content-Type: application/offset+octet-stream\r\nUpload-Offset: \(kept)\r\nContent-Length: \(1 << 20)\r\n\r\n",
                       body: [UInt8](repeating: 7, count: 1000))
        let cancel = try TransferProcess(["upload", file.path, "--to", cloud.uploadBase + "c/", "--token", cloud.token,
                                          "--state", cloud.dir.appendingPathComponent("state").path, "--cancel"])
        var refused = false
        for _ in 0..<3000 where !refused {
            refused = cloud.requests("DELETE").contains { $0.contains(" 423 ") }
            if !refused { usleep(10_000) }
        }
        held = nil
        let out = String(decoding: cancel.stdout.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        cancel.process.waitUntilExit()
        #expect(refused, "no DELETE was refused with 423: \(cloud.requests("DELETE"))")
        #expect(cancel.process.terminationStatus == 0, "\(cancel.errorText)")
        #expect(out.hasPrefix("cancelled \(file.path) → \(cloud.uploadBase)c/clip.bin: removed \(kept) bytes from the server"), "\(out)")
        #expect(try curlStatus(["-I", "-H", "Tus-Resumable: 1.0.0", "-H", "Authorization: Bearer \(cloud.token)", upload.absoluteString]) == "404")
    }
}
