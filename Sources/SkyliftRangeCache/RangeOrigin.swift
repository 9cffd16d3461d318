import Foundation
import SkyliftCore

/// Where a cached resource's bytes come from: a plain HTTP server, a CDN, or (from module Remotes) an
/// S3-compatible store. The loader asks for content info once, then for byte ranges of the representation
/// it knows, and checks each answer against it.
public protocol RangeOrigin: Sendable {
    /// Length, type and validators of `url`'s current representation.
    /// Throws ``RangeOriginError`` (for example `.status(401, …)`) when the origin refuses.
    func contentInfo(of url: URL) async throws -> ContentInfo

    /// Bytes of `range` from the representation described by `expected` (send `If-Range`/`If-Match` on its
    /// validators so a changed resource is never mixed with the old one).
    ///
    /// The answer may start before `range` (an origin that ignores `Range` sends everything from byte 0) and
    /// describes the representation actually sent, so the caller can tell when the resource changed. An origin
    /// that can only report a change (HTTP 412 for `If-Match`) throws ``RangeOriginError/changed(url:)``.
    func read(_ url: URL, range: ByteRange, expected: ContentInfo) async throws -> OriginBody
}

/// One answer from an origin: what representation it is, where its bytes start, and the bytes.
public struct OriginBody: Sendable {
    /// The representation sent: length (total, not of this part), ETag, Last-Modified, type.
    public var info: ContentInfo
    /// Position in the representation of the first byte of `chunks`.
    public var offset: Int64
    /// The bytes, with backpressure; the transfer stops when iteration stops.
    public var chunks: any AsyncSequence<[UInt8], any Error> & Sendable

    public init(info: ContentInfo, offset: Int64, chunks: any AsyncSequence<[UInt8], any Error> & Sendable) {
        self.info = info
        self.offset = offset
        self.chunks = chunks
    }
}

/// Why an origin could not supply a resource. Descriptions carry the URL without its query (queries may
/// hold signatures) and never a header value.
public enum RangeOriginError: Error, Equatable, CustomStringConvertible {
    /// The origin answered with this status (401, 403, 404, 5xx …).
    case status(Int, url: String)
    /// The representation changed since it was described.
    case changed(url: String)
    /// The origin's answer made no sense for the request (no length, wrong range, compressed body).
    case badResponse(url: String, reason: String)
    /// The origin could not be reached or the transfer broke.
    case unreachable(url: String, reason: String)

    public var description: String {
        switch self {
        case let .status(code, url): "origin answered \(code) for \(url)"
        case let .changed(url): "origin resource changed: \(url)"
        case let .badResponse(url, reason): "unusable origin response for \(url): \(reason)"
        case let .unreachable(url, reason): "origin unreachable for \(url): \(reason)"
        }
    }

    /// The HTTP status to pass on to a client, when the origin gave one worth passing on.
    public var status: Int? {
        if case let .status(code, _) = self { return code }
        return nil
    }

    /// `url` as errors and logs show it: scheme, host, port and path; no user info, no query.
    public static func display(_ url: URL) -> String { Redaction.url(url, query: .drop) }
}
