import Foundation

/// IMF-fixdate formatting and parsing for HTTP headers (RFC 9110 §5.6.7).
public enum HTTPDate {
    private static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// Seconds since 1970 of 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z: IMF-fixdate has a four-digit
    /// year, so these bound every date this type reads or writes.
    public static let earliest: Int64 = -62_135_596_800
    public static let latest: Int64 = 253_402_300_799

    /// `Sun, 06 Nov 1994 08:49:37 GMT`. Built by hand: DateFormatter is not thread-safe to share
    /// and costly to create per request. Dates outside years 1...9999 (a file's mtime can be anything)
    /// are written as the nearest end of that span.
    public static func format(_ date: Date) -> String {
        let t = clampedSeconds(date.timeIntervalSince1970)
        let (dayNumber, secs) = t.floorDivided(by: 86_400)
        let (y, m, d) = civil(fromDays: dayNumber)
        let weekday = Int((dayNumber % 7 + 11) % 7) // 1970-01-01 was a Thursday
        let hh = Int(secs / 3600), mm = Int((secs % 3600) / 60), ss = Int(secs % 60)
        // Written into one buffer of the fixed length: every response carries a date, and building it from
        // interpolated pieces was a few percent of a small request's CPU.
        return String(unsafeUninitializedCapacity: 29) { out in
            var at = 0
            func put(_ text: String) { for byte in text.utf8 { out[at] = byte; at += 1 } }
            func digits(_ value: Int, _ count: Int) {
                var divisor = 1
                for _ in 1 ..< count { divisor *= 10 }
                while divisor > 0 { out[at] = UInt8(ascii: "0") + UInt8((value / divisor) % 10); at += 1; divisor /= 10 }
            }
            put(days[weekday]); put(", "); digits(d, 2); put(" "); put(months[m - 1]); put(" "); digits(y, 4)
            put(" "); digits(hh, 2); put(":"); digits(mm, 2); put(":"); digits(ss, 2); put(" GMT")
            return at
        }
    }

    /// Whole seconds of `date` since 1970, rounded down and clamped to ``earliest``...``latest``: what an
    /// HTTP date can say about it, and safe to compare however far off the date is.
    public static func seconds(_ date: Date) -> Int64 { clampedSeconds(date.timeIntervalSince1970) }

    static func clampedSeconds(_ interval: TimeInterval) -> Int64 {
        guard !interval.isNaN else { return 0 }
        let down = interval.rounded(.down)
        if down <= Double(earliest) { return earliest }
        if down >= Double(latest) { return latest }
        return Int64(down)
    }

    /// Parses IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`: two-digit day, hour, minute and second,
    /// four-digit year); returns nil for anything else, so a date that does not fit is ignored as
    /// RFC 9110 §13.1.3 says. Obsolete forms are not needed here.
    public static func parse(_ value: String) -> Date? {
        let parts = value.trimmingSpaces().split(separator: " ")
        guard parts.count == 6, parts[5] == "GMT", let d = fixedDigits(parts[1], 2),
              let mIndex = months.firstIndex(of: String(parts[2])), let y = fixedDigits(parts[3], 4), y >= 1 else {
            return nil
        }
        let hms = parts[4].split(separator: ":", omittingEmptySubsequences: false)
        guard hms.count == 3, let hh = fixedDigits(hms[0], 2), let mm = fixedDigits(hms[1], 2),
              let ss = fixedDigits(hms[2], 2),
              (1...31).contains(d), (0...23).contains(hh), (0...59).contains(mm), (0...60).contains(ss) else { return nil }
        let dayNumber = days(fromCivil: y, mIndex + 1, d)
        return Date(timeIntervalSince1970: TimeInterval(dayNumber * 86_400 + Int64(hh * 3600 + mm * 60 + ss)))
    }

    /// Exactly `count` ASCII digits (at most four, so the value always fits).
    private static func fixedDigits(_ s: Substring, _ count: Int) -> Int? {
        guard s.utf8.count == count else { return nil }
        var v = 0
        for b in s.utf8 {
            guard b >= 48 && b <= 57 else { return nil }
            v = v * 10 + Int(b - 48)
        }
        return v
    }

    static func pad(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }

    // Howard Hinnant's civil-from-days algorithm (public domain description of the calendar math).
    static func civil(fromDays z0: Int64) -> (Int, Int, Int) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let y = yoe + era * 400
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (Int(m <= 2 ? y + 1 : y), Int(m), Int(d))
    }

    /// Days since 1970-01-01 of the proleptic Gregorian date `y0`-`m`-`d` (any year; month 1–12).
    public static func days(fromCivil y0: Int, _ m: Int, _ d: Int) -> Int64 {
        let y = Int64(m <= 2 ? y0 - 1 : y0)
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = Int64(m > 2 ? m - 3 : m + 9)
        let doy = (153 * mp + 2) / 5 + Int64(d) - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }
}

extension Int64 {
    func floorDivided(by d: Int64) -> (Int64, Int64) {
        var q = self / d, r = self % d
        if r < 0 { q -= 1; r += d }
        return (q, r)
    }
}
