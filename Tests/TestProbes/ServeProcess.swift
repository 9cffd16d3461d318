import Foundation

/// A running `skylift serve` child whose stdout lines are read as they come.
public final class ServeProcess {
    public let process = Process()
    public let stdout = Pipe()
    public let stderr = Pipe()

    /// `umask`: run under this umask (e.g. "000") to check that files get their mode at creation. `errors`: a
    /// file that takes stderr (the access log) instead of a pipe nobody drains.
    public init(_ arguments: [String], environment: [String: String], umask: String? = nil, errors: URL? = nil) throws {
        (process.executableURL, process.arguments) = try skyliftInvocation(["serve"] + arguments, umask: umask)
        process.environment = environment
        process.standardOutput = stdout
        if let errors {
            _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
            process.standardError = try FileHandle(forWritingTo: errors)
        } else {
            process.standardError = stderr
        }
        try process.run()
    }

    /// Reads stdout until `count` lines arrived (or EOF).
    public func lines(_ count: Int) -> [String] {
        var buffer = Data()
        while buffer.split(separator: UInt8(ascii: "\n")).count < count {
            let chunk = stdout.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            buffer.append(chunk)
        }
        return String(decoding: buffer, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    public func terminate() -> Int32 {
        process.terminate()
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// Kills the server with SIGKILL (no chance to tidy up) and reaps it.
    public func kill9() {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
}
