import Foundation
import TestPrograms

/// The S3 services the S3 tests run against, each started by a script in `scripts/` on a free loopback port.
public enum S3Peer: String, Sendable, CaseIterable, CustomStringConvertible {
    /// moto in server mode (`scripts/moto-s3.py`): an emulator, quick to start.
    case moto
    /// A one-node Ceph cluster with its S3 gateway (`scripts/ceph-rgw.sh`): a real distributed store.
    case rgw

    public var description: String { rawValue }
}

/// A running S3 service: its port and the credentials of a user it knows.
///
/// The script prints `READY <port> <access key id> <secret access key>` once it serves and runs until its
/// stdin closes, i.e. until this test process ends however it ends; then it stops and removes what it made.
public final class S3Service: Sendable {
    public let peer: S3Peer
    public let port: Int
    public let accessKeyID: String
    public let secretAccessKey: String
    private let process: Process
    /// Kept open for the life of the process: closing it stops the service.
    private let input: Pipe

    public var endpoint: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// Starts `peer` and waits until it serves. Blocks: call it from a thread of its own, not from the few
    /// threads of the Swift concurrency pool. `verifying` (moto only; RGW always checks) turns on moto's
    /// signature checks.
    public init(_ peer: S3Peer, verifying: Bool = true) throws {
        let scripts = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../scripts").standardizedFileURL
        let process = Process()
        switch peer {
        case .moto:
            process.executableURL = try TestPrograms.python("moto", "boto3", "flask_cors")
            process.arguments = [scripts.appendingPathComponent("moto-s3.py").path, verifying ? "verifying" : "lenient"]
        case .rgw:
            let state = FileManager.default.temporaryDirectory.appendingPathComponent("skylift-rgw-\(UUID().uuidString)")
            // The script runs these; looking them up first names their packages when they are missing.
            for program in ["ceph-mon", "ceph-osd", "radosgw", "radosgw-admin", "monmaptool"] { _ = try TestPrograms.path(program) }
            process.executableURL = try TestPrograms.path("bash")
            process.arguments = [scripts.appendingPathComponent("ceph-rgw.sh").path, "serve", state.path]
        }
        // Diagnostics go to a file: a pipe nobody reads would fill and stall the service.
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("skylift-\(peer)-\(UUID().uuidString).log")
        guard FileManager.default.createFile(atPath: log.path, contents: nil), let errors = FileHandle(forWritingAtPath: log.path) else {
            throw S3ServiceError(peer: peer, output: "cannot create \(log.path)")
        }
        defer { try? errors.close() }
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        var line = ""
        while !line.contains("\n") {
            let data = output.fileHandleForReading.availableData
            if data.isEmpty { break }
            line += String(decoding: data, as: UTF8.self)
        }
        let words = line.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: " ").map(String.init)
        guard words.count == 4, words[0] == "READY", let port = Int(words[1]) else {
            try? input.fileHandleForWriting.close()
            process.waitUntilExit()
            let why = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            try? FileManager.default.removeItem(at: log)
            throw S3ServiceError(peer: peer, output: line + why)
        }
        try? FileManager.default.removeItem(at: log)
        (self.peer, self.port, accessKeyID, secretAccessKey, self.process, self.input) = (peer, port, words[2], words[3], process, input)
    }
}

/// The service's script did not say READY.
public struct S3ServiceError: Error, CustomStringConvertible {
    public let peer: S3Peer
    public let output: String
    public var description: String {
        let hint = peer == .moto ? "pip install 'moto[server]', see scripts/pip-deps.sh"
            : "Debian ceph-mon ceph-osd radosgw ceph-common, see scripts/test.sh"
        return "the \(peer) S3 service did not start (\(hint)): \(output)"
    }
}
