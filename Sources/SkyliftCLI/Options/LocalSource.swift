import Foundation
import SkyliftSystem
import SkyliftUploads

/// What is wrong with a local file named on the command line, checked before the network is touched, in words
/// that name the cause: a link loop or a dangling link is not "no such file".
enum LocalSource {
    /// The error for `path`, or nil when it is a file that can be read.
    static func problem(_ path: String) -> UploadError? {
        do {
            let status = try FileStatus(path)
            if status.isDirectory { return .sourceIsDirectory(path: path) }
            return nil
        } catch {
            switch error.errno {
            case Errno.tooManyLinks?:
                return .sourceUnreadable(path: path, reason: "its symbolic links loop (ELOOP)")
            case Errno.noSuchFile?:
                if (try? FileStatus(path, followLinks: false))?.kind == .symlink {
                    return .sourceUnreadable(path: path, reason: "a symbolic link to a file that does not exist")
                }
                return .sourceMissing(path: path)
            case Errno.permissionDenied?:
                return .sourceUnreadable(path: path, reason: "permission denied")
            default:
                return .sourceUnreadable(path: path, reason: error.description)
            }
        }
    }
}
