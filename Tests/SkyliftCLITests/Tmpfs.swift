import Foundation
import TestPrograms
import Testing

/// A tmpfs of a given size mounted over a test's folder, so a server's disk really fills up. Mounting needs root:
/// suites using it are enabled only then.
enum Tmpfs {
    /// Whether this process may mount (root).
    static var available: Bool { getuid() == 0 }

    /// Mounts a tmpfs of `size` (`12m`) over the existing folder `dir`.
    static func mount(_ dir: URL, size: String) throws {
        try run("mount", ["-t", "tmpfs", "-o", "size=\(size),mode=0755", "tmpfs", dir.path])
    }

    /// Unmounts `dir` (its contents go with it).
    static func unmount(_ dir: URL) {
        try? run("umount", [dir.path])
    }

    private static func run(_ program: String, _ arguments: [String]) throws {
        let p = Process()
        p.executableURL = try TestPrograms.path(program)
        p.arguments = arguments
        try p.run()
        p.waitUntilExit()
        try #require(p.terminationStatus == 0, "\(program) \(arguments.joined(separator: " ")) failed")
    }
}
