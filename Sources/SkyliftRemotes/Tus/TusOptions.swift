import Foundation
import SkyliftCore

/// What a tus server announced in its OPTIONS answer (tus 1.0 core + extensions).
public struct TusOptions: Sendable, Hashable {
    /// Protocol versions the server speaks, preferred first.
    public var versions: [String]
    /// Extensions such as `creation`, `termination`, `checksum`, `expiration`.
    public var extensions: Set<String>
    /// Checksum algorithms, lower-cased (`sha1`, `sha256`, `md5`).
    public var checksumAlgorithms: [String]
    /// `Tus-Max-Size`, when sent.
    public var maxSize: Int64?
    /// Block size of the `block-checksum` extension, when offered with a size and a checksum this client accepts.
    public var blockSize: Int64?
    /// The block checksum this client asks for: the first of `BlockChecksumAlgorithm.allCases` the server
    /// lists (CRC-32C where offered), SHA-256 from a server that lists none.
    public var blockChecksum: BlockChecksumAlgorithm

    /// Reads the announcement; nil when the headers carry no tus version at all.
    public init?(headers: HTTPHeaders) {
        let versions = TusProtocol.list(headers["Tus-Version"])
        guard !versions.isEmpty || headers["Tus-Resumable"] != nil else { return nil }
        self.versions = versions.isEmpty ? [headers["Tus-Resumable"] ?? TusProtocol.version] : versions
        self.extensions = Set(TusProtocol.list(headers["Tus-Extension"]).map { $0.lowercased() })
        self.checksumAlgorithms = TusProtocol.list(headers["Tus-Checksum-Algorithm"]).map { $0.lowercased() }
        self.maxSize = headers.integer("Tus-Max-Size")
        let size = headers.integer(TusProtocol.Header.serverBlockSize)
        let checksum = TusProtocol.preferredBlockChecksum(headers[TusProtocol.Header.blockChecksumAlgorithms])
        let offered = extensions.contains(TusProtocol.blockChecksumExtension) && checksum != nil
        blockSize = offered ? size.flatMap(Self.acceptedBlockSize) : nil
        blockChecksum = checksum ?? .sha256
    }

    public init(versions: [String] = [TusProtocol.version], extensions: Set<String>, checksumAlgorithms: [String] = [],
                maxSize: Int64? = nil, blockSize: Int64? = nil, blockChecksum: BlockChecksumAlgorithm = .crc32c) {
        self.versions = versions
        self.extensions = extensions
        self.checksumAlgorithms = checksumAlgorithms
        self.maxSize = maxSize
        self.blockSize = blockSize.flatMap(Self.acceptedBlockSize)
        self.blockChecksum = blockChecksum
    }

    /// A block size between 64 KiB and 256 MiB: smaller would mean a header per few blocks, larger a big re-send.
    static func acceptedBlockSize(_ size: Int64) -> Int64? { (64 << 10 ... 256 << 20).contains(size) ? size : nil }

    /// Whether the server speaks the version this client sends.
    public var speaksOurVersion: Bool { versions.contains(TusProtocol.version) }
    /// Whether uploads can be created by POST.
    public var supportsCreation: Bool { extensions.contains("creation") }
    /// Whether partial uploads can be joined into one (`concatenation`).
    public var supportsConcatenation: Bool { extensions.contains(TusProtocol.concatenationExtension) }
    /// Whether uploads can be removed by DELETE.
    public var supportsTermination: Bool { extensions.contains("termination") }

    /// sha256 when offered, else sha1, else nil (no per-part checksums).
    public var partChecksum: PartChecksumAlgorithm? {
        guard extensions.contains("checksum") else { return nil }
        return PartChecksumAlgorithm.allCases.first { checksumAlgorithms.contains($0.rawValue) }
    }
}
