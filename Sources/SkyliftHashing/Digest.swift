import CCrypto
import Foundation
import SkyliftCore

/// A message digest algorithm from libcrypto.
public enum DigestAlgorithm: String, Sendable, CaseIterable {
    case md5, sha1, sha256

    /// Output size in bytes.
    public var byteCount: Int {
        switch self {
        case .md5: 16
        case .sha1: 20
        case .sha256: 32
        }
    }

    var evp: OpaquePointer? {
        switch self {
        case .md5: EVP_md5()
        case .sha1: EVP_sha1()
        case .sha256: EVP_sha256()
        }
    }
}

/// Incremental hashing: feed bytes with ``update(_:)``, read the result with ``finalize()``.
///
/// Not shareable across threads while updating; each stream of bytes gets its own `Digest`.
public struct Digest: ~Copyable {
    public let algorithm: DigestAlgorithm
    private let context: OpaquePointer

    public init(_ algorithm: DigestAlgorithm) {
        self.algorithm = algorithm
        // EVP_MD_CTX_new only fails on allocation failure, where continuing is impossible anyway.
        guard let ctx = EVP_MD_CTX_new() else { fatalError("EVP_MD_CTX_new failed: out of memory") }
        EVP_DigestInit_ex(ctx, algorithm.evp, nil)
        self.context = ctx
    }

    deinit { EVP_MD_CTX_free(context) }

    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        EVP_DigestUpdate(context, base, bytes.count)
    }

    public mutating func update<D: DataProtocol>(_ data: D) {
        for region in data.regions { region.withUnsafeBytes { update($0) } }
    }

    /// The digest of everything fed so far. The digest must not be updated afterwards.
    public consuming func finalize() -> [UInt8] { finalBytes() }

    /// The digest of everything fed so far, then starts over empty: for a digest kept in a class or a
    /// collection, which cannot be consumed in place.
    public mutating func finalizeAndReset() -> [UInt8] {
        let out = finalBytes()
        EVP_DigestInit_ex(context, algorithm.evp, nil)
        return out
    }

    private func finalBytes() -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var len: UInt32 = 0
        EVP_DigestFinal_ex(context, &out, &len)
        return Array(out.prefix(Int(len)))
    }

    /// One-shot digest of in-memory bytes.
    public static func hash<D: DataProtocol>(_ algorithm: DigestAlgorithm, _ data: D) -> [UInt8] {
        var d = Digest(algorithm)
        d.update(data)
        return d.finalize()
    }
}

/// HMAC-SHA256, as S3 Signature V4 needs.
public enum HMAC {
    public static func sha256(key: [UInt8], message: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var len: UInt32 = 0
        key.withUnsafeBytes { k in
            message.withUnsafeBytes { m in
                _ = CCrypto.HMAC(EVP_sha256(), k.baseAddress, Int32(k.count),
                                 m.baseAddress?.assumingMemoryBound(to: UInt8.self), m.count, &out, &len)
            }
        }
        return Array(out.prefix(Int(len)))
    }
}

extension Sequence where Element == UInt8 {
    /// Lower-case hexadecimal.
    public var hexString: String { Hex.string(self) }

    /// Standard base64 with padding.
    public var base64String: String { Data(self).base64EncodedString() }
}
