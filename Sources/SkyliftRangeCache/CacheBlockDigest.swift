import SkyliftHashing

/// Per-block checksums: the first 8 bytes of SHA-256, enough to catch torn writes and bit rot.
enum CacheBlockDigest {
    static func of(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var digest = Digest(.sha256)
        digest.update(bytes)
        return fold(digest.finalize())
    }

    static func fold(_ digest: [UInt8]) -> UInt64 {
        digest.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
    }
}
