import Foundation
import SkyliftHashing
import SkyliftHTTPClient
import SkyliftRemotes
import SkyliftCore

extension Job {
    /// SHA-256 of the source against the server's digest, or against the object read back.
    func verify(_ object: RemoteObject?) async throws {
        let local = try await source.digest(of: ByteRange(offset: 0, length: source.length), .sha256)
        if let remoteDigest = object?.sha256 {
            guard remoteDigest == local else { throw UploadError.verifyFailed(source: source.name, url: destination) }
            return
        }
        guard remote.capabilities.readable else { throw UploadError.cannotVerify(source: source.name, url: destination) }
        let response: HTTPClientResponse
        do {
            response = try await remote.read(name, range: nil)
        } catch let e as RemoteError {
            throw UploadError.remote(source: source.name, e)
        }
        var digest = Digest(.sha256)
        var count: Int64 = 0
        do {
            for try await chunk in response.body {
                digest.update(chunk)
                count += Int64(chunk.count)
            }
        } catch {
            throw UploadError.remote(source: source.name, .network(url: URL(string: destination) ?? remote.folderURL, reason: String(describing: error)))
        }
        guard count == source.length, digest.finalize() == local else {
            throw UploadError.verifyFailed(source: source.name, url: destination)
        }
    }

    /// Any range of the source, for writes that check and re-send blocks themselves (``RemoteWrite/attach(reader:)``).
    var reader: @Sendable (ByteRange) throws -> InputStream {
        let source = self.source
        return { range in PartInputStream(base: try source.open(range), limit: range.length, counter: SentCounter()) }
    }
}
