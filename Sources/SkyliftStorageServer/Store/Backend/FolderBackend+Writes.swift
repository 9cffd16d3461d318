import Foundation
import SkyliftHTTPServer
import SkyliftSystem

extension FolderBackend {
    func spaceRefusal(for length: Int64?, at path: StoragePath) -> HTTPResponse? { space.refusal(for: length, at: path.relative) }

    func writer(_ path: StoragePath, existed: Bool, length: Int64?, maxSize: Int64, expectedSHA256: [UInt8]?) throws(StoreFailure) -> any HTTPBodyReceiver {
        do {
            return try PutReceiver(target: path, maxSize: maxSize, digests: digests, expected: expectedSHA256)
        } catch {
            let status = PutReceiver.response(for: error, path: path).status
            throw StoreFailure(status: status, message: status == 507 ? "insufficient storage for \(path.relative)" : "cannot store \(path.relative)")
        }
    }

    func remove(_ path: StoragePath) throws(StoreFailure) {
        // A link is removed itself, never what it points at; nothing below a folder is followed.
        guard let entry = FileTree.entry(path) else { throw StoreFailure(status: 404, message: "not found: \(path.relative)") }
        // One rename takes the whole entry out of the tree, so a crash can never leave half a folder under its
        // name; the hidden remains are removed now, or by the start-up sweep after a crash.
        let trash = FileSystem.tempName(kind: "trash")
        let folder = entry.own.folder
        do throws(FileError) { try folder.rename(entry.own.name, to: trash, in: folder, path: path.relative) } catch {
            throw StoreFailure(status: 500, message: "cannot delete \(path.relative): \(error.errno?.description ?? "rename failed")")
        }
        try? folder.sync(path: path.relative)
        // A tree nested deeper than the walk goes keeps its deepest part under the hidden name.
        try? FileSystem.removeTree(in: folder, trash)
    }

    func makeFolder(_ path: StoragePath) throws(StoreFailure) {
        do { try FileSystem.makeDirectory(path) } catch let e as FileSystemError {
            throw e.isNoSpace ? StoreFailure(status: 507, message: "insufficient storage for \(path.relative)")
                : StoreFailure(status: 500, message: "cannot create \(path.relative)")
        } catch { throw StoreFailure(status: 500, message: "cannot create \(path.relative)") }
        if let parent = path.parent { Directory.sync(parent.filePath) }
    }

    func updateProperties(_ path: StoragePath, _ change: (inout [DeadProperties.Entry]) -> Bool) throws(StoreFailure) {
        do { try properties.update(path, change) } catch let e as FileSystemError where e.cannotHoldProperties {
            throw StoreFailure(status: 507, message: "the file system cannot hold more properties of \(path.relative)")
        } catch {
            throw StoreFailure(status: 500, message: "cannot store properties of \(path.relative)")
        }
    }

    func createEmpty(_ path: StoragePath) throws(StoreFailure) {
        do { try FileSystem.open(path.filePath, .writeOnly, [.create, .exclusive]).close() } catch {
            if let e = error as? FileSystemError, e.isNoSpace { throw StoreFailure(status: 507, message: "insufficient storage for \(path.relative)") }
            throw StoreFailure(status: 500, message: "cannot create \(path.relative)")
        }
    }
}
