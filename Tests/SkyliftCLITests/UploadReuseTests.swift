import Foundation
import SkyliftCore
import SkyliftStorageServer
import Synchronization
import TestProbes
import Testing

/// `skylift upload` keeps its connections: 100 small files to the embedded cloud go over about one TCP
/// connection per job, counted by the server.
@Suite struct UploadReuseTests {
    @Test func hundredSmallFilesUseAConnectionPerJob() throws {
        let scratch = try TempFolder("reuse"), dir = scratch.url
        let root = try scratch.folder("root"), sources = try scratch.folder("src")
        let files = try (0..<100).map { i -> String in
            let url = sources.appendingPathComponent("note-\(i).txt")
            try Data("note number \(i)\n".utf8).write(to: url)
            return url.path
        }
        let requests = Mutex(0)
        let token = "reuse-\(UUID().uuidString)"
        let server = try StorageServer(configuration: StorageConfiguration(root: root, token: token, accessLog: Logger(label: "access") { _ in
            requests.withLock { $0 += 1 }
        }))
        try server.start()
        defer { server.stop() }

        let upload = try TransferProcess(["upload"] + files + ["--to", server.baseURL + "/dav/notes/", "--token", token,
                                                               "--state", dir.appendingPathComponent("state").path, "--jobs", "2", "--json"])
        let (_, status) = upload.finish()
        #expect(status == 0, "\(upload.errorText)")
        for i in [0, 57, 99] {
            #expect(try String(contentsOf: root.appendingPathComponent("notes/note-\(i).txt"), encoding: .utf8) == "note number \(i)\n")
        }
        let sent = requests.withLock { $0 }, connections = server.connectionsAccepted
        // Two jobs: two connections in steady state, a few more where one job's request started while the
        // other's finished; never one per request.
        #expect(sent >= 200 && connections <= 6, "\(connections) connections for \(sent) requests")
    }
}
