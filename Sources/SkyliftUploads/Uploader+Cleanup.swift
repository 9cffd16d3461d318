import Foundation
import SkyliftRemotes
import SkyliftCore

extension Uploader {
    /// Removes a write's partial upload from the server (tus termination, S3 abort, a WebDAV part file), trying
    /// again under ``UploadOptions/cleanupRetry`` while the answer can change: a 423 while the server still
    /// finishes the PATCH that was cut, a network error, a 5xx. Returns nil once the server confirmed the
    /// removal, else the last error, so no caller reports a removal that did not happen.
    func remove(_ write: any RemoteWrite) async -> (any Error)? {
        var attempts = 0
        while true {
            do {
                try await write.abort()
                return nil
            } catch let error as RemoteError {
                attempts += 1
                guard error.disposition != .fatal, options.cleanupRetry.allowsAnother(after: attempts) else { return error }
                do {
                    try await Task.sleep(nanoseconds: UInt64(options.cleanupRetry.delay(beforeRetry: attempts) * 1e9))
                } catch {
                    return error
                }
            } catch {
                return error
            }
        }
    }
}
