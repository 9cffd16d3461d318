import Foundation
import SkyliftHTTPClient
import SkyliftCore

/// One file sent as tus partial uploads (`concatenation`), one per part, several at once, then joined by one
/// final upload (`Upload-Concat: final;…`) that the server turns into the file.
///
/// Every partial upload is created up front, so the ``token`` (saved before the first byte goes out) names them
/// all and a run after a crash continues each one from its own offset (HEAD). Each is an ordinary ``TusWrite``
/// of its part's bytes, with `block-checksum` where the server offers it: a part is one PATCH, checksummed block
/// by block, and confirmed as soon as it is in. ``finish()`` creates the final upload.
final class TusConcatWrite: PartedWrite {
    let remote: TusRemote
    let name: String
    let length: Int64
    let partLength: Int64
    /// Part 1, 2, … as partial uploads.
    let partials: [TusWrite]

    /// How a token of this write starts: `tus-concat <part length> <url> <url> …`.
    static let tokenPrefix = "tus-concat "
    /// Parts smaller than this gain nothing from going side by side.
    static let minimumPartLength: Int64 = 1 << 20

    init(remote: TusRemote, name: String, length: Int64, partLength: Int64, partials: [TusWrite]) {
        self.remote = remote
        self.name = name
        self.length = length
        self.partLength = partLength
        self.partials = partials
    }

    /// The part length that cuts `length` bytes into at most `count` parts of at least ``minimumPartLength``;
    /// nil when that makes fewer than two parts (one stream is then as good).
    static func partLength(length: Int64, count: Int) -> Int64? {
        guard count > 1, length > 0 else { return nil }
        let even = (length - 1) / Int64(count) + 1
        let part = max(even, minimumPartLength)
        return (length - 1) / part + 1 >= 2 ? part : nil
    }

    var token: String { Self.tokenPrefix + String(partLength) + " " + partials.map(\.token).joined(separator: " ") }
    var isResumable: Bool { true }
    var maxPartLength: Int64? { partLength }
    /// Plain partial uploads carry `Upload-Checksum` when the server checks them; `block-checksum` ones check blocks.
    var partChecksum: PartChecksumAlgorithm? { partials.first?.partChecksum }
    var continuesParts: Bool { true }

    func attach(reader: @escaping @Sendable (ByteRange) throws -> InputStream) {
        for (index, partial) in partials.enumerated() {
            let start = range(ofPart: index + 1, length: length).offset
            partial.attach { r in try reader(ByteRange(offset: start + r.offset, length: r.length)) }
        }
    }

    /// The partial upload of part `number`.
    func partial(_ number: Int) throws -> TusWrite {
        guard partials.indices.contains(number - 1) else {
            throw RemoteError.protocolViolation(url: remote.creationURL, reason: "part \(number) of \(partials.count) partial uploads")
        }
        return partials[number - 1]
    }

    /// Each partial upload's offset. One that holds every byte counts whole even before its blocks are confirmed:
    /// ``finish()`` confirms them (and sends bad ones again) before the final upload is created.
    func storedParts() async throws -> [Int: Int64] {
        var stored: [Int: Int64] = [:]
        for number in 1...partials.count { stored[number] = try await partials[number - 1].head().offset }
        return stored
    }

    func heldPrefix(ofPart number: Int) async throws -> Int64 { try await partial(number).head().offset }

    /// The bytes held in parts 1, 2, … up to the first unfinished one (for an engine sending parts in order).
    func confirmedOffset() async throws -> Int64 {
        let stored = try await storedParts()
        var offset: Int64 = 0
        for number in 1...partials.count {
            let part = range(ofPart: number, length: length)
            offset = part.offset + min(stored[number] ?? 0, part.length)
            guard stored[number] == part.length else { break }
        }
        return offset
    }

    /// One part after another (an engine that does not use the parted capability).
    func send(_ part: WritePart) async throws -> Int64 {
        let number = Int(part.offset / partLength) + 1
        let slice = range(ofPart: number, length: length)
        guard part.offset + part.length <= slice.offset + slice.length else {
            throw RemoteError.protocolViolation(url: remote.creationURL, reason: "bytes \(part.offset)+\(part.length) cross part \(number)")
        }
        try await send(part, number: number)
        return part.offset + part.length
    }

    /// Sends the rest of part `number` (from `part.offset`, where its partial upload stands) and confirms it.
    func send(_ part: WritePart, number: Int) async throws {
        let partial = try partial(number)
        let start = range(ofPart: number, length: length).offset
        if part.length > 0 {
            let inPartial = WritePart(offset: part.offset - start, length: part.length, checksum: part.checksum, open: part.open)
            let next = try await partial.send(inPartial)
            guard next == partial.length else { throw RemoteError.offsetConflict(url: partial.uploadURL) }
        }
        try await partial.finish()
    }

    /// Makes sure every partial upload is finished, then creates the final upload; the server joins them into
    /// `name` and forgets them.
    func finish() async throws {
        for partial in partials { try await partial.finish() }
        var headers = TusProtocol.creationHeaders(length: length, name: name)
        headers.remove(TusProtocol.Header.length)
        headers.set(TusProtocol.Concat.header, TusProtocol.Concat.final(partials.map(\.token)).headerValue)
        do {
            try await remote.http.expect([200, 201, 204], "POST", remote.creationURL, headers: headers)
        } catch let e as RemoteError where e.status == 400 {
            // An earlier creation whose answer was lost may have joined them already: a partial upload gone says
            // so (``RemoteError/uploadGone(url:)``, and the engine looks for the file in place).
            for partial in partials { _ = try await partial.head() }
            throw e
        }
    }

    func abort() async throws {
        for partial in partials { try await partial.abort() }
    }
}
