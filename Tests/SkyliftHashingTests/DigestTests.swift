import Foundation
import SkyliftHashing
import Testing

@Suite struct DigestTests {
    @Test func knownVectors() {
        let abc = Array("abc".utf8)
        #expect(Digest.hash(.sha256, abc).hexString == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(Digest.hash(.sha1, abc).hexString == "a9993e364706816aba3e25717850c26c9cd0d89d")
        #expect(Digest.hash(.md5, abc).hexString == "900150983cd24fb0d6963f7d28e17f72")
    }

    @Test func incrementalEqualsOneShot() {
        let data = (0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        var d = Digest(.sha256)
        for chunk in stride(from: 0, to: data.count, by: 777) {
            d.update(data[chunk..<min(chunk + 777, data.count)])
        }
        #expect(d.finalize() == Digest.hash(.sha256, data))
    }

    @Test func hmacRFC4231Case2() {
        let mac = HMAC.sha256(key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8))
        #expect(mac.hexString == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }
}
