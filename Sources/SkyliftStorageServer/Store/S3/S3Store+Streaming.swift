import SkyliftCore
import SkyliftS3

extension S3Store {
    /// Bytes held between a streamed write's body and the part being sent (``PartPump``).
    static let pumpLimit = 128 << 10

    /// Why a streamed write's body was refused: it held more or fewer bytes than it announced.
    struct BodyLengthMismatch: Error, CustomStringConvertible {
        let expected: Int64
        let actual: Int64
        var description: String { "the body has \(actual) bytes, not the \(expected) it announced" }
    }

    /// The multipart path of ``write(_:body:length:expectedSHA256:contentType:keepingProperties:)`` for a body whose
    /// `length` is known beforehand: every part is sent to the bucket while its bytes arrive, so no part is
    /// gathered in memory and each byte is hashed once (into the file's SHA-256) on its way. The parts go as
    /// `UNSIGNED-PAYLOAD` (a part's SigV4 hash would need its bytes before the request starts): the connection
    /// (TCP, TLS for https) guards them in flight, and the recorded SHA-256 lets `scrub` check the stored file.
    /// A part that fails ends the write (its bytes are gone): nothing is placed, and the client sends again.
    func writeStreaming<Body: AsyncSequence>(_ path: String, body: Body, length: Int64, expectedSHA256: [UInt8]?, contentType: String,
                                             keepingProperties: Bool) async throws -> S3StoreEntry where Body.Element == [UInt8] {
        let upload = try await beginUpload(path, contentType: contentType)
        let pump = PartPump(limit: Self.pumpLimit)
        let digest = DigestRecorder([.sha256])
        do {
            // The parts go from a child task while this one reads the body (the body need not be Sendable).
            async let sending = sendParts(upload, from: pump, length: length, digest: digest)
            do {
                try await Self.feed(body, into: pump, length: length)
            } catch {
                _ = try? await sending
                throw error
            }
            let parts = try await sending
            return try await place(upload, parts: parts, length: length, sha256: digest.sha256, expectedSHA256: expectedSHA256,
                                   contentType: contentType, keepingProperties: keepingProperties)
        } catch {
            await discard(upload)
            throw S3StoreError.wrapping(error, operation: "write", path: path)
        }
    }

    /// Sends `length` bytes from `pump` as parts of `upload`, one at a time, keeping its state object fresh; stops
    /// the pump when it ends, so the body's reader never waits on a sender that is gone.
    private func sendParts(_ upload: S3StoreUpload, from pump: PartPump, length: Int64, digest: DigestRecorder) async throws -> [S3Part] {
        defer { pump.stop() }
        var parts: [S3Part] = []
        var sent: Int64 = 0
        var touched = ContinuousClock.now
        while sent < length {
            if ContinuousClock.now - touched > Self.uploadHeartbeat {
                try await record(upload, condition: .always)
                touched = .now
            }
            let size = min(Int64(partSize), length - sent)
            let number = parts.count + 1
            let etag = try await client.uploadPart(bucket: bucket, key: upload.stagingKey, uploadId: upload.uploadId, number: number,
                                                   body: .stream(length: size) { PartStream(pump: pump, length: size, digest: digest) },
                                                   sha256: nil)
            parts.append(S3Part(number: number, etag: etag, size: size))
            sent += size
        }
        return parts
    }

    /// Hands `body` to `pump`, ending it with the body (or its failure). A body longer or shorter than `length` is
    /// refused (``BodyLengthMismatch``): the parts would not add up to it.
    private static func feed<Body: AsyncSequence>(_ body: Body, into pump: PartPump, length: Int64) async throws
    where Body.Element == [UInt8] {
        var count: Int64 = 0
        do {
            for try await chunk in body {
                count += Int64(chunk.count)
                if count > length { throw BodyLengthMismatch(expected: length, actual: count) }
                guard await pump.push(chunk) else { return }
            }
            if count != length { throw BodyLengthMismatch(expected: length, actual: count) }
            pump.finish()
        } catch {
            pump.finish(failure: error)
            throw error
        }
    }
}
