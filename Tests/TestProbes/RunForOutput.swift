import Foundation

/// Runs a program (from `TestPrograms`) to completion; stdout as text.
public func runForOutput(_ program: URL, _ args: [String]) throws -> (status: Int32, out: String) {
    let p = Process()
    p.executableURL = program
    p.arguments = args
    let pipe = Pipe()
    p.standardOutput = pipe
    try p.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    return (p.terminationStatus, String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
}
