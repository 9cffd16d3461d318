import Foundation
import SkyliftCore
import Testing

@Suite struct UTCTimestampTests {
    /// Written exactly as JSONEncoder's `.iso8601` writes (records saved before keep reading back), and read back.
    @Test(arguments: [0.0, 1_764_571_200, 951_782_399, 1_709_251_199.75, 253_402_300_799, -1])
    func sameTextAsFoundationsISO8601(_ seconds: Double) throws {
        struct Stamp: Codable { var at: Date }
        let date = Date(timeIntervalSince1970: seconds)
        let foundation = JSONEncoder()
        foundation.dateEncodingStrategy = .iso8601
        let ours = JSONEncoder()
        ours.dateEncodingStrategy = .utcTimestamp
        let written = try ours.encode(Stamp(at: date))
        #expect(written == (try foundation.encode(Stamp(at: date))))
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .utcTimestamp
        #expect(try decoder.decode(Stamp.self, from: written).at == Date(timeIntervalSince1970: seconds.rounded(.down)))
    }

    @Test func knownValues() {
        #expect(UTCTimestamp.format(Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00Z")
        #expect(UTCTimestamp.format(Date(timeIntervalSince1970: 1_764_571_200)) == "2025-12-01T06:40:00Z")
        #expect(UTCTimestamp.parse("2024-02-29T23:59:59Z") == Date(timeIntervalSince1970: 1_709_251_199))
        #expect(UTCTimestamp.format(Date(timeIntervalSince1970: .nan)) == "1970-01-01T00:00:00Z")
        #expect(UTCTimestamp.format(Date(timeIntervalSince1970: 1e300)) == "9999-12-31T23:59:59Z")
        #expect(UTCTimestamp.format(Date(timeIntervalSince1970: -1e300)) == "0001-01-01T00:00:00Z")
    }

    @Test(arguments: ["", "2024-02-29T23:59:59", "2024-02-29 23:59:59Z", "2023-02-29T00:00:00Z", "2024-13-01T00:00:00Z",
                      "2024-04-31T00:00:00Z", "2024-01-01T24:00:00Z", "2024-01-01T00:60:00Z", "2024-01-01T00:00:60Z",
                      "0000-01-01T00:00:00Z", "+024-01-01T00:00:00Z", "2024-01-01T00:00:00.5Z", "2024-01-01T00:00:00+01:00",
                      "２０２４-01-01T00:00:00Z", "2024-01-01T00:00:0ZZ"])
    func refusesAnythingElse(_ text: String) {
        #expect(UTCTimestamp.parse(text) == nil, "\(text)")
    }

    @Test func aRecordWithAnotherDateIsACorruptionErrorNotATrap() {
        struct Stamp: Codable { var at: Date }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .utcTimestamp
        #expect(throws: DecodingError.self) { try decoder.decode(Stamp.self, from: Data(#"{"at":"yesterday"}"#.utf8)) }
        #expect(throws: DecodingError.self) { try decoder.decode(Stamp.self, from: Data(#"{"at":12}"#.utf8)) }
    }
}
