import Foundation

/// Bytes held in memory, for small payloads and tests.
public final class MemorySource: BlobSource {
    /// The bytes served.
    public let bytes: [UInt8]
    public let name: String
    private let identity: BlobIdentity

    /// - Parameters:
    ///   - bytes: the content served.
    ///   - name: what errors call this source.
    ///   - identity: defaults to one unique to this instance (the bytes cannot change under it).
    public init(_ bytes: [UInt8], name: String = "memory", identity: BlobIdentity? = nil) {
        self.bytes = bytes
        self.name = name
        self.identity = identity ?? BlobIdentity("memory:\(UUID().uuidString):\(bytes.count)")
    }

    public convenience init(_ data: Data, name: String = "memory") {
        self.init([UInt8](data), name: name)
    }

    public func open(completion: @escaping @Sendable (Result<BlobInfo, any Error>) -> Void) {
        completion(.success(BlobInfo(length: Int64(bytes.count), identity: identity)))
    }

    public func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws -> Int {
        guard offset >= 0, offset < Int64(bytes.count) else { return 0 }
        let start = Int(offset)
        let n = min(buffer.count, bytes.count - start)
        bytes.withUnsafeBytes { src in
            UnsafeMutableRawBufferPointer(rebasing: buffer[0 ..< n])
                .copyMemory(from: UnsafeRawBufferPointer(rebasing: src[start ..< start + n]))
        }
        return n
    }

    public func close() {}
}
