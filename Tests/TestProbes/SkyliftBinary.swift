import Foundation
import TestPrograms

/// The built `skylift` binary, next to the test bundle in the build folder (`swift build --build-tests` builds
/// it with the tests).
public func skyliftBinary() -> URL {
    var dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    while dir.path != "/" {
        let candidate = dir.appendingPathComponent("skylift")
        if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        dir.deleteLastPathComponent()
    }
    return URL(fileURLWithPath: ".build/debug/skylift")
}

/// The executable and arguments that run `skylift arguments`, under `umask` when given (through sh, which
/// `exec`s skylift, so the process id is skylift's).
public func skyliftInvocation(_ arguments: [String], umask: String? = nil) throws -> (URL, [String]) {
    guard let umask else { return (skyliftBinary(), arguments) }
    return (try TestPrograms.path("bash"), ["-c", "umask \(umask) && exec \"$0\" \"$@\"", skyliftBinary().path] + arguments)
}

