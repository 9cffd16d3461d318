import Foundation
import SkyliftHashing
import SkyliftCore
import SkyliftSystem

/// Why the web app's state folder or one of its files could not be used.
public struct WebStateError: Error, CustomStringConvertible {
    /// What was being done (`create`, `read`, `write`, `rename`).
    public let operation: String
    public let path: String
    public let errno: Errno

    public var description: String { "cannot \(operation) \(path): \(errno)" }

    init(operation: String, path: String, errno: Errno) {
        self.operation = operation
        self.path = path
        self.errno = errno
    }

    /// A failed call of SkyliftSystem, in this type's terms.
    init(_ error: FileError, operation: String) {
        self.init(operation: operation, path: error.path, errno: error.errno ?? .invalidArgument)
    }
}

/// The web app's private folder inside the store (`.skylift-webapp`, a name requests can never reach): the
/// server secret that signs session cookies and share links, the session list and the share registry.
/// Everything in it is created 0600 (the folder 0700) and replaced atomically; a change holds an exclusive
/// `flock` on `<name>.lock`, so processes sharing the folder never interleave theirs.
public struct WebState: WebStateStore {
    /// Name of the folder inside the store root; the `.skylift-` prefix hides it from every request.
    public static let folderName = ".skylift-webapp"

    public let directory: String

    public var location: String { directory }

    /// Opens (creating if needed) the state folder of the store at `root`, which must exist.
    public init(root: String) throws {
        directory = (root.hasSuffix("/") ? String(root.dropLast()) : root) + "/" + Self.folderName
        do {
            guard try FileStatus(root).isDirectory else { throw WebStateError(operation: "create", path: directory, errno: .notDirectory) }
            try PrivateFiles.createDirectory(directory)
        } catch let error as FileError {
            throw WebStateError(error, operation: "create")
        }
    }

    /// The contents of the state file `name`; nil when it does not exist. Links are not followed.
    public func read(_ name: String) throws -> String? {
        let path = directory + "/" + name
        let fd: FileDescriptor
        switch Result(catching: { () throws(FileError) in try FileDescriptor.open(path, .readOnly, options: [.noFollow]) }) {
        case let .success(opened): fd = opened
        case let .failure(error):
            if error.errno == .noSuchFile { return nil }
            throw WebStateError(error, operation: "read")
        }
        defer { fd.close() }
        var data = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = try buffer.withUnsafeMutableBytes { raw in Result { () throws(FileError) in try fd.read(into: raw, path: path) } }
                .mapError { WebStateError($0, operation: "read") }.get()
            if n == 0 { break }
            data += buffer[0 ..< n]
            // State files are small; a huge one is not ours to load.
            if data.count > 16 << 20 { throw WebStateError(operation: "read", path: path, errno: .fileTooLarge) }
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// Replaces the state file `name` with `text` (0600), as `AtomicFile` does: a reader finds the old
    /// content or the new, and the new survives a power cut once this returns.
    public func replace(_ name: String, with text: String) throws {
        do { try AtomicFile.replace(directory + "/" + name, with: Array(text.utf8)) } catch {
            throw WebStateError(error, operation: "write")
        }
    }

    public func update(_ name: String, _ change: (String?) throws -> String?) throws {
        try locked(name + ".lock") {
            if let text = try change(try read(name)) { try replace(name, with: text) }
        }
    }

    public func createOnce(_ name: String, _ text: String) throws -> Bool {
        // Created whole or not at all: when two processes start at once, the second one reads the first one's.
        do { return try AtomicFile.createNew(directory + "/" + name, with: Array(text.utf8)) } catch {
            throw WebStateError(error, operation: "create")
        }
    }

    /// Runs `body` holding an exclusive `flock` on the state file `name` (created 0600 if needed), so that
    /// read-modify-replace cycles of several processes do not interleave.
    func locked<T>(_ name: String, _ body: () throws -> T) throws -> T {
        let path = directory + "/" + name
        let fd: FileDescriptor
        do { fd = try FileDescriptor.open(path, .readWrite, options: [.create]) } catch { throw WebStateError(error, operation: "create") }
        defer { fd.close() }
        do { try fd.lockExclusive(path: path) } catch { throw WebStateError(error, operation: "lock") }
        return try body()
    }
}
