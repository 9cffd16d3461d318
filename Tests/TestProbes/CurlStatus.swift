import Foundation
import TestPrograms

/// Runs curl with `args`; the HTTP status it saw as text, "000" when no connection was made.
public func curlStatus(_ args: [String]) throws -> String {
    let p = Process()
    p.executableURL = try TestPrograms.path("curl")
    p.arguments = ["-s", "-o", "/dev/null", "-w", "%{http_code}"] + args
    let pipe = Pipe()
    p.standardOutput = pipe
    try p.run()
    let out = pipe.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    return String(decoding: out, as: UTF8.self)
}
