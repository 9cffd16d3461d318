import Foundation
import SkyliftHashing
import SkyliftCore
import SkyliftSystem

/// The served directory: its real path, the path resolver bound to it, and the hidden state directory.
struct Store: Sendable {
    let rootPath: String
    let resolver: PathResolver
    /// Where unfinished tus uploads live: inside the root so completing one is a same-file-system rename.
    let uploadsDirectory: String
    /// The digest records of stored files.
    let digests: DigestStore
    /// Refuses bodies the disk cannot hold.
    let space: SpaceCheck

    init(root: URL, digestAlgorithms: Set<DigestAlgorithm> = [.sha256], spaceReserve: Int64? = nil) throws {
        digests = DigestStore(algorithms: digestAlgorithms)
        guard let real = FileSystem.realPath(root.path), FileSystem.stat(real)?.isDirectory == true else {
            throw StorageServerError.rootNotADirectory(path: root.path)
        }
        rootPath = real == "/" ? "" : real
        space = SpaceCheck(rootPath: rootPath, reserve: spaceReserve)
        resolver = PathResolver(rootPath: rootPath, rootFolder: RootFolder(path: rootPath))
        uploadsDirectory = rootPath + "/" + PathResolver.hiddenPrefix + "uploads"
        // 0700: unfinished uploads are nobody else's business until they land in the served tree.
        do { try PrivateFiles.createDirectory(uploadsDirectory) } catch {
            throw StorageServerError.cannotCreateState(path: uploadsDirectory, errno: error.errno ?? .ioError)
        }
        digests.probe(in: uploadsDirectory)
        // Before the first request: MOVEs a crash cut short are finished, and dead properties of older
        // stores move from their sidecar files onto their resources.
        MoveJournal(rootPath: rootPath).recover()
        if digests.supported { PropertyMigration(rootPath: rootPath).run() }
    }

    var root: StoragePath { path([]) }

    /// The place `segments` names below the root (already checked by the caller).
    func path(_ segments: [String]) -> StoragePath {
        StoragePath(segments: segments, rootPath: rootPath, rootFolder: resolver.rootFolder)
    }
}
