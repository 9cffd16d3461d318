import Foundation
import TestPrograms

/// A tmpfs mounted over a test's folder, so a server's disk really fills up (and can be given more room, as a
/// user freeing space would). Mounting needs root: suites using it are enabled only then.
public enum Tmpfs {
    /// A mount or unmount that did not succeed, with the command.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Whether this process may mount (root).
    public static var available: Bool { getuid() == 0 }

    /// Mounts a tmpfs of `size` (`12m`) over the existing folder `dir`; `inodes` caps its entries (and with them
    /// the room a tmpfs gives extended attributes).
    public static func mount(_ dir: URL, size: String, inodes: Int? = nil) throws {
        try run("mount", ["-t", "tmpfs", "-o", "size=\(size),mode=0755" + (inodes.map { ",nr_inodes=\($0)" } ?? ""), "tmpfs", dir.path])
    }

    /// Changes a mounted tmpfs's options (`size=8m`, `nr_inodes=1000`): room freed.
    public static func remount(_ dir: URL, _ options: String) throws {
        try run("mount", ["-o", "remount," + options, dir.path])
    }

    /// Unmounts `dir` (its contents go with it).
    public static func unmount(_ dir: URL) {
        try? run("umount", [dir.path])
    }

    private static func run(_ program: String, _ arguments: [String]) throws {
        let p = Process()
        p.executableURL = try TestPrograms.path(program)
        p.arguments = arguments
        try p.run()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else { throw Failure(description: "\(program) \(arguments.joined(separator: " ")) failed") }
    }
}
