import Foundation

extension TusProtocol {
    /// Headers for creating an upload of `length` bytes named `name` (relative path inside the folder): its
    /// metadata carries `filename`, `filetype` (the media type its extension suggests) and, for a name in a
    /// subfolder, `relativePath`. With `blockChecksum` the upload asks for `block-checksum` with that algorithm.
    public static func creationHeaders(length: Int64, name: String, blockChecksum: BlockChecksumAlgorithm? = nil) -> HTTPHeaders {
        var h = baseHeaders()
        h.add(Header.length, String(length))
        let fileName = name.split(separator: "/").last.map(String.init) ?? name
        // `filetype` as browser clients send it (a bare media type); some servers refuse creations without it.
        let fileType = MediaType.forPath(fileName).split(separator: ";").first.map(String.init) ?? "application/octet-stream"
        var meta = [("filename", fileName), ("filetype", fileType)]
        if name.contains("/") { meta.append(("relativePath", name)) }
        h.add(Header.metadata, metadata(meta))
        if let blockChecksum { h.add(Header.blockChecksum, blockChecksum.rawValue) }
        return h
    }

    /// Headers for a PATCH of `length` bytes at `offset`, with `Upload-Checksum` when `checksum` is given.
    public static func patchHeaders(offset: Int64, length: Int64, checksum: (algorithm: String, digest: [UInt8])?) -> HTTPHeaders {
        var h = baseHeaders()
        h.add(Header.offset, String(offset))
        h.add("Content-Type", offsetContentType)
        h.add("Content-Length", String(length))
        if let checksum { h.add(Header.checksum, checksumHeader(checksum.algorithm, checksum.digest)) }
        return h
    }

    /// An empty PATCH at `offset` confirming `digests` (`block-checksum`).
    public static func confirmHeaders(offset: Int64, digests: BlockDigests) -> HTTPHeaders {
        var h = patchHeaders(offset: offset, length: 0, checksum: nil)
        h.add(Header.blockDigests, digests.headerValue)
        return h
    }
}
