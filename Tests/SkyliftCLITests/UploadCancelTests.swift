import Foundation
import TestProbes
import Testing

@Suite struct UploadCancelTests {
    /// A killed upload leaves a tus upload on the server and a resume record; `--cancel` removes both, and a
    /// second `--cancel` finds nothing.
    @Test func cancelAbortsTheServersPartialUploadAndForgetsIt() throws {
        let cloud = try CloudFixture()
        try cloud.slowDown()
        let file = try cloud.source("big.bin", mib: 12)
        let first = try cloud.upload(file, folder: "c/")
        #expect(cloud.waitForConfirmedPart())
        first.kill9()

        let records = cloud.dir.appendingPathComponent("state/uploads")
        let recordFile = try #require(try FileManager.default.contentsOfDirectory(atPath: records.path).first { $0.hasSuffix(".json") })
        let record = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: records.appendingPathComponent(recordFile))) as? [String: Any])
        let uploadURL = try #require(record["token"] as? String)
        #expect(try curlStatus(["-I", "-H", "Tus-Resumable: 1.0.0", "-H", "Authorization: Bearer \(cloud.token)", uploadURL]) == "200")

        let cancel = { () throws -> (String, Int32) in
            let p = try TransferProcess(["upload", file.path, "--to", cloud.uploadBase + "c/", "--token", cloud.token,
                                         "--state", cloud.dir.appendingPathComponent("state").path, "--cancel"])
            let out = String(decoding: p.stdout.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            p.process.waitUntilExit()
            return (out, p.process.terminationStatus)
        }
        let (out, status) = try cancel()
        #expect(status == 0)
        #expect(out.hasPrefix("cancelled \(file.path) → \(cloud.uploadBase)c/big.bin: removed "))
        #expect(try curlStatus(["-I", "-H", "Tus-Resumable: 1.0.0", "-H", "Authorization: Bearer \(cloud.token)", uploadURL]) == "404")
        #expect(!FileManager.default.fileExists(atPath: records.appendingPathComponent(recordFile).path))
        #expect(!FileManager.default.fileExists(atPath: cloud.root.appendingPathComponent("c/big.bin").path))

        let (again, againStatus) = try cancel()
        #expect(againStatus == 0)
        #expect(again == "nothing to cancel for \(file.path) → \(cloud.uploadBase)c/big.bin\n")
    }
}
