import Foundation
import SkyliftS3

/// What holds the stored properties of a file or folder: the object (a folder's marker) as read, so a change is
/// made only over it.
public struct S3StorePropertyRecord: Sendable {
    /// The stored properties (opaque to the store); nil when there are none.
    public var bytes: [UInt8]?
    let key: String
    let head: S3ObjectHead
}

/// Properties of files and folders (WebDAV's dead properties), kept in the object's user metadata
/// (``propertiesField``, base64), so a copy or move on the service carries them and a delete removes them. A
/// folder's are on its marker, made when it has none. A change rewrites the object's metadata by copying it onto
/// itself, only while it has the ETag it was read with.
extension S3Store {
    /// The user-metadata field holding a file's or folder's properties.
    public static let propertiesField = "skylift-props"
    /// The most property bytes one file or folder keeps: all user metadata travels in request headers, which
    /// services cap (AWS at 2 KiB in all, Ceph RGW at the size of a request head).
    public static let maxPropertyBytes = 6 << 10

    /// The properties of the file or folder at `path` with the object holding them; nil when nothing is there.
    /// The root has a record only under a prefix (its marker is the prefix's). `forChange`: a folder without a
    /// marker gets one, to carry the properties about to be stored (a read leaves it as it is: no properties).
    public func propertyRecord(_ path: String, forChange: Bool) async throws -> S3StorePropertyRecord? {
        let path = try Self.checked(path, operation: "read properties of")
        // A file is one HEAD; a folder's marker a second; a folder without one, a listing (and its marker, to change).
        if !path.isEmpty, let record = try await propertyHead(key(path), path: path) { return record }
        guard !(path.isEmpty && prefix.isEmpty) else {
            throw S3StoreError(operation: "read properties of", path: path, status: 403, reason: .invalidPath)
        }
        if let record = try await propertyHead(folderKey(path), path: path) { return record }
        guard forChange, !path.isEmpty, try await stat(path)?.kind == .folder else { return nil }
        _ = try await writeMarker(path, operation: "store properties of")
        return try await propertyHead(folderKey(path), path: path)
    }

    /// The properties object `key` carries, with its head; nil when there is no such object.
    private func propertyHead(_ key: String, path: String) async throws -> S3StorePropertyRecord? {
        do {
            let head = try await client.headObjectMetadata(bucket: bucket, key: key)
            let bytes = head.metadata[Self.propertiesField].flatMap { Data(base64Encoded: $0) }.map(Array.init)
            return S3StorePropertyRecord(bytes: bytes, key: key, head: head)
        } catch let error as S3Error where error.status == 404 {
            return nil
        } catch {
            throw S3StoreError.wrapping(error, operation: "read properties of", path: path)
        }
    }

    /// Replaces the properties `record` was read with by `bytes` (none when nil or empty), only while the object
    /// is the one read: false when it was written meanwhile (read again and retry), `propertiesTooLarge` past
    /// ``maxPropertyBytes``.
    public func replaceProperties(_ record: S3StorePropertyRecord, with bytes: [UInt8]?) async throws -> Bool {
        let path = self.path(ofKey: record.key)
        if let bytes, bytes.count > Self.maxPropertyBytes {
            throw S3StoreError(operation: "store properties of", path: path, status: 507,
                               reason: .tooLarge(bytes.count, limit: Self.maxPropertyBytes))
        }
        var metadata = record.head.metadata
        metadata[Self.propertiesField] = bytes.flatMap { $0.isEmpty ? nil : Data($0).base64EncodedString() }
        do {
            _ = try await client.copyObject(bucket: bucket, from: record.key, to: record.key, size: record.head.info.length ?? 0,
                                            metadata: metadata, contentType: record.head.info.contentType,
                                            sourceIfMatch: record.head.info.etag)
            return true
        } catch let error as S3Error where error.status == 412 {
            return false
        } catch {
            throw S3StoreError.wrapping(error, operation: "store properties of", path: path)
        }
    }

    /// The properties of the file at `path` as the metadata to carry into the object that replaces it; none when
    /// there is no file there, it has none, or the service does not say now (the new file then has none).
    func carriedProperties(_ path: String) async -> [String: String] {
        guard let head = try? await client.headObjectMetadata(bucket: bucket, key: key(path)),
              let properties = head.metadata[Self.propertiesField] else { return [:] }
        return [Self.propertiesField: properties]
    }
}
