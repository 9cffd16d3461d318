import Foundation
import SkyliftHTTPServer
import SkyliftSystem

/// Refuses a body the disk cannot hold before any of it is read, so a full disk costs the client one
/// request head instead of the whole body (`507 Insufficient Storage`, RFC 4918 §11.5).
///
/// Free space is what `statvfs` gives an unprivileged writer on the root's file system, less a reserve kept
/// for state files, directory entries and the bodies already arriving. The check is a first answer, not a
/// promise: a disk that fills up meanwhile still fails the write with `ENOSPC`, which answers 507 too.
struct SpaceCheck: Sendable {
    let rootPath: String
    /// Bytes kept free; nil for the default (1% of the file system, at most 64 MiB).
    let reserve: Int64?

    static let maxDefaultReserve: Int64 = 64 << 20

    /// Bytes a new body may take now; nil when the file system does not say.
    func available() -> Int64? {
        guard let root = try? FileDescriptor.open(rootPath.isEmpty ? "/" : rootPath, .readOnly, options: .directory) else { return nil }
        defer { root.close() }
        guard let free = root.availableSpace() else { return nil }
        let kept = reserve ?? min(Self.maxDefaultReserve, (root.fileSystemSize() ?? 0) / 100)
        return max(0, free - kept)
    }

    /// 507 naming the target when `length` more bytes do not fit; nil when they do, or nothing is known.
    func refusal(for length: Int64?, at target: String, headers: HTTPHeaders = [:]) -> HTTPResponse? {
        guard let length, length > 0, let room = available(), length > room else { return nil }
        return .text(507, "insufficient storage for \(target): the body needs \(length) bytes, \(room) are free", headers: headers)
    }
}
