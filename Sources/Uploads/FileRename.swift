import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// rename(2): replaces the destination in one step, which FileManager's move does not.
enum FileRename {
    static func move(_ source: URL, over destination: URL) throws {
        if rename(source.path, destination.path) != 0 {
            let code = errno
            try? FileManager.default.removeItem(at: source)
            throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
        }
    }
}
