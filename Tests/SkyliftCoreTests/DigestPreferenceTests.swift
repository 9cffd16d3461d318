import SkyliftCore
import Testing

/// `Want-Repr-Digest` (RFC 9530 §4) as a server reads it.
@Suite struct DigestPreferenceTests {
    @Test func weightsAndChoice() throws {
        let p = try #require(DigestPreference("sha-512=3, sha-256=10;foo=1, unixsum=0"))
        #expect(p.weight(of: "sha-256") == 10 && p.weight(of: "sha-512") == 3 && p.weight(of: "unixsum") == 0)
        #expect(p.choose(from: ["sha-256", "sha-512"]) == ["sha-256"])
        #expect(p.choose(from: ["sha-512"]) == ["sha-512"])
        // Only unknown algorithms asked for: the server may send what it has, unless refused with 0.
        #expect(DigestPreference("crc32c=4")?.choose(from: ["sha-256"]) == ["sha-256"])
        #expect(DigestPreference("sha-256=0")?.choose(from: ["sha-256"]) == [])
        // The last of a repeated key counts (RFC 8941 §3.2).
        #expect(DigestPreference("sha-256=0, sha-256=2")?.weight(of: "sha-256") == 2)
    }

    @Test func malformedMembersAreSkippedAndOversizedFieldsIgnored() {
        let p = DigestPreference("SHA-256=1, sha-256=11, sha-512=-1, md5=x, =3, sha=2")
        #expect(p?.weights.map(\.key) == ["sha"])
        #expect(DigestPreference(String(repeating: "a=1,", count: 65)) == nil)
        #expect(DigestPreference(String(repeating: "a", count: 5000) + "=1") == nil)
        #expect(DigestPreference("")?.weights.isEmpty == true)
    }
}
