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

    /// Reads the announcement; nil when the headers carry no tus version at all.
    public init?(headers: HTTPHeaders) {
        let versions = Self.list(headers["Tus-Version"])
        guard !versions.isEmpty || headers["Tus-Resumable"] != nil else { return nil }
        self.versions = versions.isEmpty ? [headers["Tus-Resumable"] ?? TusProtocol.version] : versions
        self.extensions = Set(Self.list(headers["Tus-Extension"]).map { $0.lowercased() })
        self.checksumAlgorithms = Self.list(headers["Tus-Checksum-Algorithm"]).map { $0.lowercased() }
        self.maxSize = headers.integer("Tus-Max-Size")
    }

    public init(versions: [String] = [TusProtocol.version], extensions: Set<String>, checksumAlgorithms: [String] = [], maxSize: Int64? = nil) {
        self.versions = versions
        self.extensions = extensions
        self.checksumAlgorithms = checksumAlgorithms
        self.maxSize = maxSize
    }

    /// Whether the server speaks the version this client sends.
    public var speaksOurVersion: Bool { versions.contains(TusProtocol.version) }
    /// Whether uploads can be created by POST.
    public var supportsCreation: Bool { extensions.contains("creation") }
    /// Whether uploads can be removed by DELETE.
    public var supportsTermination: Bool { extensions.contains("termination") }

    /// sha256 when offered, else sha1, else nil (no per-part checksums).
    public var partChecksum: PartChecksumAlgorithm? {
        guard extensions.contains("checksum") else { return nil }
        return PartChecksumAlgorithm.allCases.first { checksumAlgorithms.contains($0.rawValue) }
    }

    private static func list(_ value: String?) -> [String] {
        (value ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }
}

/// Request headers and response fields of tus 1.0.
public enum TusProtocol {
    /// The version this client speaks.
    public static let version = "1.0.0"
    /// The status a server answers when a part's checksum does not match.
    public static let checksumMismatchStatus = 460

    /// `Upload-Metadata`: comma-separated `key base64(value)` pairs, in the given order.
    public static func metadata(_ pairs: [(String, String)]) -> String {
        pairs.map { "\($0.0) \(Array($0.1.utf8).base64String)" }.joined(separator: ",")
    }

    /// Parses `Upload-Metadata` back into pairs (values decoded; a key without value maps to "").
    public static func parseMetadata(_ value: String) -> [String: String] {
        var out: [String: String] = [:]
        for pair in value.split(separator: ",") {
            let parts = pair.trimmingCharacters(in: .whitespaces).split(separator: " ", maxSplits: 1)
            guard let key = parts.first else { continue }
            let decoded = parts.count > 1 ? Data(base64Encoded: String(parts[1])).map { String(decoding: $0, as: UTF8.self) } : ""
            out[String(key)] = decoded ?? ""
        }
        return out
    }

    /// `Upload-Checksum: <algorithm> <base64 digest>`.
    public static func checksumHeader(_ algorithm: PartChecksumAlgorithm, _ digest: [UInt8]) -> String {
        "\(algorithm.rawValue) \(digest.base64String)"
    }

    /// `Upload-Offset` of a response, when present and a non-negative integer.
    public static func offset(_ headers: HTTPHeaders) -> Int64? {
        headers.integer("Upload-Offset")
    }

    /// `Upload-Length` of a response, when present.
    public static func length(_ headers: HTTPHeaders) -> Int64? {
        headers.integer("Upload-Length")
    }

    /// The headers every tus request carries besides OPTIONS.
    public static func baseHeaders() -> HTTPHeaders { ["Tus-Resumable": version] }

    /// Headers for creating an upload of `length` bytes named `name` (relative path inside the folder): its
    /// metadata carries `filename`, `filetype` (the media type its extension suggests) and, for a name in a
    /// subfolder, `relativePath`.
    public static func creationHeaders(length: Int64, name: String) -> HTTPHeaders {
        var h = baseHeaders()
        h.add("Upload-Length", String(length))
        let fileName = name.split(separator: "/").last.map(String.init) ?? name
        // `filetype` as browser clients send it (a bare media type); some servers refuse creations without it.
        let fileType = MediaType.forPath(fileName).split(separator: ";").first.map(String.init) ?? "application/octet-stream"
        var meta = [("filename", fileName), ("filetype", fileType)]
        if name.contains("/") { meta.append(("relativePath", name)) }
        h.add("Upload-Metadata", metadata(meta))
        return h
    }

    /// Headers for a PATCH sending `part`.
    public static func patchHeaders(offset: Int64, length: Int64, checksum: (PartChecksumAlgorithm, [UInt8])?) -> HTTPHeaders {
        var h = baseHeaders()
        h.add("Upload-Offset", String(offset))
        h.add("Content-Type", "application/offset+octet-stream")
        h.add("Content-Length", String(length))
        if let (alg, digest) = checksum { h.add("Upload-Checksum", checksumHeader(alg, digest)) }
        return h
    }
}
