import Foundation
import SkyliftCore
import SkyliftHTTPClient

/// Joining finished partial writes into one file (tus `concatenation`): the pieces' bytes are read back in order
/// and written as the file through ``S3Store/write(_:body:expectedSHA256:contentType:keepingProperties:)``, so the
/// file appears whole or not at all, with its SHA-256 computed on the way. Every byte passes through this instance
/// once more (the pieces can have any size, which server-side part copies cannot take, and the file's SHA-256
/// needs every byte read). The pieces go only once the file is in place: a failure leaves them for another try.
extension S3Store {
    /// Joins the finished partial writes `ids`, in order, into the file `path` (replacing a file there, whose
    /// properties the new one keeps); returns the joined write (whose
    /// record stays, complete, for a client's HEAD) and the file. `unfinished` (409) when one is not a finished
    /// partial write; `lengthMismatch` (413) when they hold more than `limit` bytes together.
    public func concatenate(_ ids: [String], into path: String, contentType: String? = nil, metadata: String? = nil,
                            limit: Int64 = .max) async throws -> (upload: S3StoreUpload, entry: S3StoreEntry) {
        let path = try Self.checked(path, operation: "join")
        guard !path.isEmpty else { throw S3StoreError(operation: "join", path: path, reason: .invalidPath) }
        var pieces: [S3StoreUpload] = []
        var total: Int64 = 0
        for id in ids {
            let upload = try await resumableState(id).upload
            guard upload.partial == true, let length = upload.completedLength else {
                throw S3StoreError(operation: "join", path: id, status: 409, reason: .unfinished("not a finished partial write"))
            }
            pieces.append(upload)
            let (sum, overflow) = total.addingReportingOverflow(length)
            guard !overflow, sum <= limit else {
                throw S3StoreError(operation: "join", path: path, status: 413, reason: .lengthMismatch(expected: limit, actual: overflow ? .max : sum))
            }
            total = sum
        }
        let keys = pieces.filter { ($0.completedLength ?? 0) > 0 }.map(\.stagingKey)
        let entry = try await write(path, body: StagedBytes(store: self, keys: keys), contentType: contentType, keepingProperties: true)
        guard entry.info.length == total else {
            throw S3StoreError(operation: "join", path: path, reason: .invalidResponse("the pieces held \(entry.info.length ?? 0) bytes, not \(total)"))
        }
        let id = UUID().uuidString.lowercased()
        // A record for HEAD only: nothing is staged under it, and the sweep removes it with the rest.
        let joined = S3StoreUpload(id: id, path: path, stagingKey: systemKey("staging/" + id), uploadId: "none", partSize: partSize,
                                   length: total, contentType: entry.info.contentType, metadata: metadata, joined: ids,
                                   completedLength: total)
        try? await record(joined, condition: .absent)
        for piece in pieces { await discard(piece) }
        return (joined, entry)
    }
}

/// The bytes of staged objects, one after the other, as a write's body.
struct StagedBytes: AsyncSequence, Sendable {
    let store: S3Store
    let keys: [String]

    struct Iterator: AsyncIteratorProtocol {
        let store: S3Store
        var keys: ArraySlice<String>
        var current: HTTPResponseBody.Iterator?

        mutating func next() async throws -> [UInt8]? {
            while true {
                if let chunk = try await current?.next() { return chunk }
                guard let key = keys.popFirst() else { return nil }
                do {
                    current = try await store.client.getObject(bucket: store.bucket, key: key).body.makeAsyncIterator()
                } catch {
                    throw S3StoreError.wrapping(error, operation: "join", path: store.path(ofKey: key))
                }
            }
        }
    }

    func makeAsyncIterator() -> Iterator { Iterator(store: store, keys: keys[...], current: nil) }
}
