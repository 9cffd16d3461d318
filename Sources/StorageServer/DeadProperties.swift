import Foundation
import SkyliftSystem
import Synchronization

/// Dead properties (set by clients with PROPPATCH), kept in a hidden sidecar file beside each resource:
/// `<folder>/.skylift-props.<name>` (the root's own in `<root>/.skylift-props-root`). Because a collection's
/// members keep their sidecars inside it, renaming or copying the folder carries their properties along;
/// only the resource's own sidecar needs moving.
final class DeadProperties: Sendable {
    /// Most bytes of stored property XML per resource: PROPFIND reads a sidecar whole, so it stays small.
    static let maxBytesPerResource = 1 << 20
    /// Serialises read-modify-write of sidecars, so concurrent PROPPATCHes never lose each other's changes.
    private let updating = Mutex(())

    /// One stored property: its name and its whole element as stand-alone XML.
    struct Entry: Codable, Sendable {
        var property: PropertyName
        var xml: String
    }

    func sidecar(_ path: StoragePath) -> String {
        guard let parent = path.parent else { return path.rootPath + "/" + PathResolver.hiddenPrefix + "props-root" }
        return parent.filePath + "/" + PathResolver.hiddenPrefix + "props." + path.name
    }

    /// The stored set; empty when there is none. A sidecar that is not a regular file (a link, a FIFO someone
    /// put there) is ignored rather than followed or waited on.
    func load(_ path: StoragePath) -> [Entry] {
        // A sidecar far past what PROPPATCH ever writes was not written by it: ignore it rather than read it.
        guard let fd = try? FileSystem.openRegularFile(in: AT_FDCWD, sidecar(path)) else { return [] }
        let handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
        guard let data = try? handle.read(upToCount: 4 * Self.maxBytesPerResource + 1),
              data.count <= 4 * Self.maxBytesPerResource else { return [] }
        return (try? JSONDecoder().decode([Entry].self, from: data)) ?? []
    }

    /// Replaces the stored set through ``AtomicFile`` (mode 0644, like the files served beside it; the temp
    /// file has a hidden name requests can never reach); an empty set removes the sidecar.
    func save(_ entries: [Entry], for path: StoragePath) throws {
        let file = sidecar(path)
        if entries.isEmpty { FileSystem.unlink(file); return }
        try AtomicFile.replace(file, with: Array(try JSONEncoder().encode(entries)), permissions: 0o644,
                               temporary: FileSystem.tempSibling(of: file, kind: "tmp"))
    }

    /// Loads, lets `change` edit, and saves the set under the update lock; `change` returns false to save nothing.
    func update(_ path: StoragePath, _ change: (inout [Entry]) -> Bool) throws {
        try updating.withLock { _ in
            var entries = load(path)
            if change(&entries) { try save(entries, for: path) }
        }
    }

    func remove(_ path: StoragePath) { FileSystem.unlink(sidecar(path)) }

    /// Carries the resource's own properties to `destination` (members' travel with the folder).
    func copy(from source: StoragePath, to destination: StoragePath) throws {
        let entries = load(source)
        remove(destination)
        if !entries.isEmpty { try save(entries, for: destination) }
    }

    func move(from source: StoragePath, to destination: StoragePath) {
        let file = sidecar(source)
        remove(destination)
        if FileManager.default.fileExists(atPath: file) { try? FileSystem.rename(file, sidecar(destination)) }
    }
}
