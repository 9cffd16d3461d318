import Foundation
import SkyliftRemotes
import SkyliftCore
import Testing

@Suite struct TusProtocolTests {
    @Test func optionsAnnouncementPicksSha256OverSha1() throws {
        let h: HTTPHeaders = ["Tus-Resumable": "1.0.0", "Tus-Version": "1.0.0,0.2.2",
                              "Tus-Extension": "creation, termination,checksum", "Tus-Checksum-Algorithm": "md5,sha1,SHA256",
                              "Tus-Max-Size": "1073741824"]
        let o = try #require(TusOptions(headers: h))
        #expect(o.versions == ["1.0.0", "0.2.2"])
        #expect(o.speaksOurVersion && o.supportsCreation && o.supportsTermination)
        #expect(o.partChecksum == .sha256)
        #expect(o.maxSize == 1 << 30)
    }

    @Test func checksumNeedsTheExtensionAndAKnownAlgorithm() throws {
        let sha1Only = try #require(TusOptions(headers: ["Tus-Version": "1.0.0", "Tus-Extension": "creation,checksum", "Tus-Checksum-Algorithm": "md5,sha1"]))
        #expect(sha1Only.partChecksum == .sha1)
        let noExt = try #require(TusOptions(headers: ["Tus-Version": "1.0.0", "Tus-Extension": "creation", "Tus-Checksum-Algorithm": "sha256"]))
        #expect(noExt.partChecksum == nil)
        #expect(TusOptions(headers: ["DAV": "1,2"]) == nil)
    }

    @Test func uploadConcatIsReadWithBounds() {
        typealias Concat = TusProtocol.Concat
        #expect(Concat.parse(" partial ") == .success(.partial))
        #expect(Concat.parse("final;/uploads/a  http://h/uploads/b\t/uploads/c") == .success(.final(["/uploads/a", "http://h/uploads/b", "/uploads/c"])))
        #expect(Concat.parse("final;") == .failure(.empty))
        #expect(Concat.parse("final; ") == .failure(.empty))
        for bad in ["", "partial;", "Final;/a", "final /uploads/a", "finally;/a", "partial final;/a"] {
            #expect(Concat.parse(bad) == .failure(.malformed), "\(bad)")
        }
        let limit = Array(repeating: "/u", count: Concat.maxParts)
        #expect(Concat.parse("final;" + limit.joined(separator: " ")) == .success(.final(limit)))
        #expect(Concat.parse("final;" + (limit + ["/u"]).joined(separator: " ")) == .failure(.tooMany(limit: Concat.maxParts)))
        #expect(Concat.final(["/uploads/a", "/uploads/b"]).headerValue == "final;/uploads/a /uploads/b")
        let offered = TusOptions(headers: ["Tus-Version": "1.0.0", "Tus-Extension": "creation,concatenation"])
        #expect(offered?.supportsConcatenation == true)
        #expect(TusOptions(headers: ["Tus-Version": "1.0.0", "Tus-Extension": "creation"])?.supportsConcatenation == false)
    }

    @Test func metadataRoundTripsAndCarriesRelativePath() {
        let h = TusProtocol.creationHeaders(length: 42, name: "trip/day 1/clip é.mp4")
        #expect(h["Upload-Length"] == "42")
        #expect(h["Tus-Resumable"] == "1.0.0")
        let meta = TusProtocol.parseMetadata(h["Upload-Metadata"] ?? "")
        #expect(meta == ["filename": "clip é.mp4", "filetype": "video/mp4", "relativePath": "trip/day 1/clip é.mp4"])
        let flat = TusProtocol.parseMetadata(TusProtocol.creationHeaders(length: 1, name: "a.bin")["Upload-Metadata"] ?? "")
        #expect(flat == ["filename": "a.bin", "filetype": "application/octet-stream"])
        // Parameters are left out, as browsers send `file.type`.
        let text = TusProtocol.parseMetadata(TusProtocol.creationHeaders(length: 1, name: "notes.TXT")["Upload-Metadata"] ?? "")
        #expect(text?["filetype"] == "text/plain")
        #expect(TusProtocol.metadata([("filename", "hello")]) == "filename aGVsbG8=")
    }

    @Test func metadataSplitsOnCommasInsideGraphemes() {
        // U+06DD prepends to the next character, so "\u{06DD}," is one Character: the comma still separates.
        #expect(TusProtocol.parseMetadata("\u{06DD},56") == ["\u{06DD}": "", "56": ""])
        #expect(TusProtocol.parseMetadata("\u{06DD} aGVsbG8=,k\tdg==") == ["\u{06DD}": "hello", "k": "v"])
    }

    @Test func patchHeadersCarryOffsetAndChecksum() {
        let h = TusProtocol.patchHeaders(offset: 1024, length: 10, checksum: ("sha1", [0xde, 0xad, 0xbe, 0xef]))
        #expect(h["Upload-Offset"] == "1024")
        #expect(h["Content-Type"] == "application/offset+octet-stream")
        #expect(h["Upload-Checksum"] == "sha1 3q2+7w==")
        #expect(TusProtocol.patchHeaders(offset: 0, length: 1, checksum: nil)["Upload-Checksum"] == nil)
        #expect(TusProtocol.offset(["Upload-Offset": " 77 "]) == 77)
        #expect(TusProtocol.offset(["Upload-Offset": "-1"]) == nil)
    }

    @Test func blockChecksumIsNegotiatedCRC32CFirst() throws {
        let base: HTTPHeaders = ["Tus-Version": "1.0.0", "Tus-Extension": "creation,block-checksum", "Tus-Block-Size": "4194304"]
        var listed = base
        listed.add("Tus-Block-Checksum-Algorithm", "sha256, CRC32C")
        let both = try #require(TusOptions(headers: listed))
        #expect(both.blockSize == 4 << 20 && both.blockChecksum == .crc32c)
        // A server from before the choice names none: it takes SHA-256.
        let old = try #require(TusOptions(headers: base))
        #expect(old.blockSize == 4 << 20 && old.blockChecksum == .sha256)
        // Only algorithms this client does not know: no block-checksum at all.
        var unknown = base
        unknown.add("Tus-Block-Checksum-Algorithm", "md5,xxh3")
        #expect(try #require(TusOptions(headers: unknown)).blockSize == nil)
        #expect(TusProtocol.creationHeaders(length: 5, name: "a", blockChecksum: .crc32c)["Upload-Block-Checksum"] == "crc32c")
        #expect(TusProtocol.creationHeaders(length: 5, name: "a")["Upload-Block-Checksum"] == nil)
    }

    @Test func blockDigestsHaveTheAlgorithmsSize() throws {
        let crc = TusProtocol.BlockDigests(first: 3, digests: [[0xE3, 0x06, 0x92, 0x83], [0, 0, 0, 1]])
        #expect(crc.headerValue == "3 4waSgw==,AAAAAQ==")
        #expect(TusProtocol.BlockDigests(header: crc.headerValue, byteCount: 4) == crc)
        #expect(TusProtocol.BlockDigests(header: crc.headerValue, byteCount: 32) == nil)
        #expect(TusProtocol.BlockDigests(header: "3 4waSgw==,AAAA", byteCount: 4) == nil)
        guard case let .success(sum) = TusProtocol.parseChecksum("CRC32C 4waSgw==") else { Issue.record("crc32c refused"); return }
        #expect(sum.algorithm == "crc32c" && sum.digest == [0xE3, 0x06, 0x92, 0x83])
        #expect(TusProtocol.preferredBlockChecksum(nil) == .sha256)
        #expect(TusProtocol.preferredBlockChecksum("sha256") == .sha256)
        #expect(TusProtocol.preferredBlockChecksum(" md5 ") == nil)
    }

    @Test func offerChoosesTusThenDav() {
        let both = RemoteOffer(headers: ["Tus-Version": "1.0.0", "Tus-Extension": "creation", "DAV": "1, 2", "Allow": "GET, PUT, MOVE"])
        #expect(both.choice == .tus && both.dav && both.allow.contains("MOVE"))
        #expect(RemoteOffer(headers: ["DAV": "1"]).choice == .webdav)
        // tus without creation cannot start an upload: only DAV counts then.
        #expect(RemoteOffer(headers: ["Tus-Version": "1.0.0", "DAV": "1"]).choice == .webdav)
        #expect(RemoteOffer(headers: ["Allow": "GET, HEAD"]).choice == nil)
    }

    @Test func errorDispositions() {
        let u = URL(string: "http://h/x")!
        #expect(RemoteError.status(503, method: "PATCH", url: u, detail: nil).disposition == .retry)
        #expect(RemoteError.status(409, method: "PATCH", url: u, detail: nil).disposition == .refetchOffset)
        #expect(RemoteError.status(423, method: "PATCH", url: u, detail: nil).disposition == .refetchOffset)
        #expect(RemoteError.status(460, method: "PATCH", url: u, detail: nil).disposition == .resendPart)
        for fatal in [401, 403, 404, 413, 415] {
            #expect(RemoteError.status(fatal, method: "POST", url: u, detail: nil).disposition == .fatal)
        }
        #expect(RemoteError.network(url: u, reason: "reset").disposition == .refetchOffset)
        #expect(RemoteError.status(401, method: "POST", url: u, detail: nil).description.contains("--token"))
    }

    @Test func remoteErrorsShowTheURLWithoutCredentialsOrQuery() {
        let u = URL(string: "https://user:secret@host/dav/a?X-Sig=abc")!
        #expect(RemoteError.uploadGone(url: u).description == "https://host/dav/a: upload no longer exists on the server")
    }
}
