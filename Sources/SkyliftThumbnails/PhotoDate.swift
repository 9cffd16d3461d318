import Foundation
import SkyliftCore

/// EXIF dates as libvips renders them: `"2024:05:01 10:00:00 (2024:05:01 10:00:00, ASCII, 20 components, 20 bytes)"`
/// for DateTimeOriginal, `"+02:00 (…)"` for OffsetTimeOriginal. The text comes from the file: every field is
/// bounded, and anything else (blank `0000:00:00 00:00:00`, out-of-range fields, junk) is refused.
public enum PhotoDate {
    /// The instant of an EXIF `DateTimeOriginal` value with its `OffsetTimeOriginal` (nil offset: the local time
    /// is taken as UTC, since EXIF before 2.31 records no zone); nil when the text is not such a date.
    public static func parse(_ dateText: String, offset offsetText: String? = nil) -> Date? {
        let date = Array(value(dateText).utf8)
        // YYYY:MM:DD HH:MM:SS, nothing else.
        guard date.count == 19, date[4] == UInt8(ascii: ":"), date[7] == UInt8(ascii: ":"), date[10] == UInt8(ascii: " "),
              date[13] == UInt8(ascii: ":"), date[16] == UInt8(ascii: ":"),
              let year = number(date[0 ..< 4]), let month = number(date[5 ..< 7]), let day = number(date[8 ..< 10]),
              let hour = number(date[11 ..< 13]), let minute = number(date[14 ..< 16]), let second = number(date[17 ..< 19]),
              (1 ... 9999).contains(year), (1 ... 12).contains(month), (1 ... daysIn(month, year)).contains(day),
              hour < 24, minute < 60, second < 60 else { return nil }
        var offsetSeconds = 0
        if let offsetText {
            guard let parsed = offset(value(offsetText)) else { return nil }
            offsetSeconds = parsed
        }
        let days = HTTPDate.days(fromCivil: year, month, day)
        let seconds = days * 86_400 + Int64(hour * 3600 + minute * 60 + second) - Int64(offsetSeconds)
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    /// The value before libvips' ` (…)` description.
    private static func value(_ text: String) -> Substring {
        let head = text.prefix(64)
        let cut = head.firstIndex(of: "(").map { head[..<$0] } ?? head
        return Substring(cut.trimmingCharacters(in: .whitespaces))
    }

    /// `+HH:MM` or `-HH:MM` as seconds east of UTC (at most 14 hours).
    private static func offset(_ text: Substring) -> Int? {
        let b = Array(text.utf8)
        guard b.count == 6, b[0] == UInt8(ascii: "+") || b[0] == UInt8(ascii: "-"), b[3] == UInt8(ascii: ":"),
              let h = number(b[1 ..< 3]), let m = number(b[4 ..< 6]), h <= 14, m < 60 else { return nil }
        return (b[0] == UInt8(ascii: "-") ? -1 : 1) * (h * 3600 + m * 60)
    }

    private static func number(_ digits: ArraySlice<UInt8>) -> Int? {
        var n = 0
        for d in digits {
            guard (UInt8(ascii: "0") ... UInt8(ascii: "9")).contains(d) else { return nil }
            n = n * 10 + Int(d - UInt8(ascii: "0"))
        }
        return n
    }

    private static func daysIn(_ month: Int, _ year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}
