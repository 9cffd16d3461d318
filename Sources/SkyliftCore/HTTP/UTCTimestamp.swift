import Foundation

/// `2026-12-01T06:40:00Z`: an ISO 8601 timestamp in UTC with whole seconds, as JSONEncoder's `.iso8601` strategy
/// writes it, formatted and parsed by hand.
///
/// Foundation's ISO 8601 formatting builds a Gregorian calendar in the current time zone, and looking that zone up
/// reads ICU's time-zone data: about 2 MiB more resident memory in a process (`skylift upload`) that only wanted
/// to stamp a resume record. Use `JSONEncoder.DateEncodingStrategy.utcTimestamp` and its decoding twin for
/// the same text without that cost.
public enum UTCTimestamp {
    /// `YYYY-MM-DDTHH:MM:SSZ`, seconds rounded down; dates outside years 1...9999 are written as the nearest end
    /// of that span.
    public static func format(_ date: Date) -> String {
        let (dayNumber, secs) = HTTPDate.clampedSeconds(date.timeIntervalSince1970).floorDivided(by: 86_400)
        let (y, m, d) = HTTPDate.civil(fromDays: dayNumber)
        let year = String(repeating: "0", count: max(0, 4 - String(y).count)) + String(y)
        let (hh, mm, ss) = (Int(secs / 3600), Int(secs % 3600 / 60), Int(secs % 60))
        return "\(year)-\(HTTPDate.pad(m))-\(HTTPDate.pad(d))T\(HTTPDate.pad(hh)):\(HTTPDate.pad(mm)):\(HTTPDate.pad(ss))Z"
    }

    /// Parses exactly `YYYY-MM-DDTHH:MM:SSZ` (a real calendar day of years 1...9999, leap seconds refused as
    /// Foundation does); nil for anything else.
    public static func parse(_ text: String) -> Date? {
        let u = Array(text.utf8)
        guard u.count == 20, u[4] == UInt8(ascii: "-"), u[7] == UInt8(ascii: "-"), u[10] == UInt8(ascii: "T"),
              u[13] == UInt8(ascii: ":"), u[16] == UInt8(ascii: ":"), u[19] == UInt8(ascii: "Z") else { return nil }
        // ASCII digits at u[from ..< from + count] (at most four: the value always fits).
        func field(_ from: Int, _ count: Int) -> Int? {
            var v = 0
            for b in u[from ..< from + count] {
                guard b >= UInt8(ascii: "0"), b <= UInt8(ascii: "9") else { return nil }
                v = v * 10 + Int(b - UInt8(ascii: "0"))
            }
            return v
        }
        guard let y = field(0, 4), let m = field(5, 2), let d = field(8, 2), let hh = field(11, 2), let mm = field(14, 2),
              let ss = field(17, 2), y >= 1, (1...12).contains(m), (1...daysIn(month: m, year: y)).contains(d),
              (0...23).contains(hh), (0...59).contains(mm), (0...59).contains(ss) else { return nil }
        let seconds = HTTPDate.days(fromCivil: y, m, d) * 86_400 + Int64(hh * 3600 + mm * 60 + ss)
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    private static func daysIn(month m: Int, year y: Int) -> Int {
        switch m {
        case 2: (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}

extension JSONEncoder.DateEncodingStrategy {
    /// Dates as ``UTCTimestamp`` text: what `.iso8601` writes, without loading ICU's time-zone data.
    public static var utcTimestamp: Self {
        .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(UTCTimestamp.format(date))
        }
    }
}

extension JSONDecoder.DateDecodingStrategy {
    /// Reads what ``JSONEncoder/DateEncodingStrategy/utcTimestamp`` (or `.iso8601`) wrote.
    public static var utcTimestamp: Self {
        .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let date = UTCTimestamp.parse(text) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a UTC timestamp (YYYY-MM-DDTHH:MM:SSZ)")
            }
            return date
        }
    }
}
