import EventStore
import Foundation

/// Dates in the API: ISO 8601 UTC with milliseconds, e.g. `2026-11-21T10:00:00.000Z`.
enum APIDate {
    static let style = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    /// The date's text, in the millisecond the ledger counts it in (`Timestamp.milliseconds`: its
    /// nearest microsecond, rounded down).
    ///
    /// Apple's dates are whole milliseconds, which a `Date` holds only to the nearest double:
    /// `ISO8601FormatStyle` truncated those and printed many of them a millisecond early (…742.699 as
    /// .698). An event's `recorded_at` has microseconds, and `as_of` counts it in the millisecond it
    /// falls in, so it is shown in that one, not rounded into the next. Written here from whole
    /// milliseconds for years 1970 to 9999, which is also several times cheaper than the style, used
    /// only outside that range.
    static func string(_ date: Date) -> String {
        let milliseconds = Timestamp.milliseconds(date)
        guard milliseconds >= 0, milliseconds < 253_402_300_800_000 else { return style.format(date) }
        return string(millisecondsSince1970: milliseconds)
    }

    /// Formats whole milliseconds since 1970 (0 up to the end of year 9999).
    static func string(millisecondsSince1970 total: Int64) -> String {
        let days = total / 86_400_000
        var rest = total % 86_400_000
        let (year, month, day) = civil(daysSince1970: days)
        let hour = rest / 3_600_000
        rest %= 3_600_000
        let minute = rest / 60_000
        rest %= 60_000
        let second = rest / 1000
        let millisecond = rest % 1000
        return String(unsafeUninitializedCapacity: 24) { text in
            var at = 0
            func put(_ value: Int64, width: Int) {
                var value = value
                for index in stride(from: at + width - 1, through: at, by: -1) {
                    text[index] = UInt8(ascii: "0") + UInt8(value % 10)
                    value /= 10
                }
                at += width
            }
            func put(_ byte: Unicode.Scalar) {
                text[at] = UInt8(ascii: byte)
                at += 1
            }
            put(year, width: 4); put("-"); put(month, width: 2); put("-"); put(day, width: 2)
            put("T"); put(hour, width: 2); put(":"); put(minute, width: 2); put(":"); put(second, width: 2)
            put("."); put(millisecond, width: 3); put("Z")
            return at
        }
    }

    /// The proleptic Gregorian date of a day count since 1970-01-01 (Howard Hinnant's civil_from_days).
    private static func civil(daysSince1970 days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let shifted = days + 719_468
        let era = shifted / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }

    /// Why a text is not a moment the API takes.
    enum Refusal: Error, Equatable {
        /// The text is not `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`.
        case form
        /// The text has the form, but a field names no real moment; the text says which and why.
        case field(String)
        /// A real moment the API cannot name: outside years 0001 to 9999 once its offset is applied.
        case range
    }

    /// Parses a query parameter or a date in a body (with or without fractional seconds), saying
    /// why a text is refused.
    ///
    /// The text must be a whole RFC 3339 date-time (the `Instant` pattern of `openapi.yaml`), and
    /// its calendar fields must name a real moment: Foundation's parser ignores what follows the
    /// part it read (`…Zjunk`), takes zone forms RFC 3339 has not (`UTC`, `+0200`), rolls
    /// `2026-02-30` over to March 2 and takes hour 24 and second 60, so a typo would be evaluated
    /// at another date. A refused field is named, since the text then looks right at a glance.
    ///
    /// Digits past the microsecond are dropped, as the store keeps no finer time: parsed whole,
    /// `.4359999` was rounded to `.436` and so counted in the next millisecond, and Foundation
    /// refuses more than nine. The moment must fall in years 0001 to 9999 once its offset is applied,
    /// so an answer can name it in RFC 3339.
    static func read(_ text: String) -> Result<Date, Refusal> {
        guard let fields = Fields(text) else { return .failure(.form) }
        if let fault = fields.fault { return .failure(.field(fault)) }
        // RFC 3339 allows a lowercase `t` and `z`; Foundation's parser does not.
        var text = text.uppercased()
        var fractionOfASecond = 0.0
        var millisecondOfTheSecond: Int64 = 0
        if text.utf8.count > 20, text.utf8[text.utf8.index(text.utf8.startIndex, offsetBy: 19)] == UInt8(ascii: ".") {
            let fraction = text.dropFirst(20).prefix { $0.isASCII && $0.isNumber }
            if fraction.count > 6 {
                text = String(text.prefix(20)) + fraction.prefix(6) + text.dropFirst(20 + fraction.count)
            }
            fractionOfASecond = Double("0." + fraction.prefix(6)) ?? 0
            millisecondOfTheSecond = Int64(String((fraction + "00").prefix(3))) ?? 0
        }
        guard let date = (try? style.parse(text)) ?? (try? Date.ISO8601FormatStyle().parse(text)) else { return .failure(.form) }
        // The millisecond the text names, from its whole second (exact after rounding: the parse is
        // off by far less than half a second) and its fraction's first three digits.
        let wholeSecond = Int64((date.timeIntervalSince1970 - fractionOfASecond).rounded())
        let named = wholeSecond * 1000 + millisecondOfTheSecond
        guard named >= firstMillisecond, named < endMillisecond else { return .failure(.range) }
        guard Timestamp.milliseconds(date) != named else { return .success(date) }
        // Past about year 5000 a `Date` holds time only to tens of microseconds, so a fraction such
        // as .999999 came out in the next second (.99999Z on the last second of 9999 in year 10000),
        // where digits past the millisecond are to be dropped, not rounded. The middle of the named
        // millisecond is the moment nearest it that reads as it.
        return .success(Date(timeIntervalSince1970: (Double(named) + 0.5) / 1000))
    }

    /// 0001-01-01T00:00:00Z and 10000-01-01T00:00:00Z, in milliseconds since 1970, as Foundation's
    /// calendar counts them (Julian before October 1582, so year 1 starts two days before the
    /// proleptic Gregorian one): the parser and the style that writes such dates use that calendar.
    static let firstMillisecond: Int64 = -62_135_769_600_000
    static let endMillisecond: Int64 = 253_402_300_800_000

    /// The numbers of a text in the form `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`, before their
    /// ranges are checked.
    private struct Fields {
        var year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0
        var offsetHours = 0, offsetMinutes = 0

        /// Nil unless `text` is the whole form and nothing more.
        init?(_ text: String) {
            let bytes = Array(text.utf8)
            guard bytes.count >= 20 else { return nil }
            func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
            func number(_ range: Range<Int>) -> Int? {
                var value = 0
                for byte in bytes[range] {
                    guard isDigit(byte) else { return nil }
                    value = value * 10 + Int(byte - UInt8(ascii: "0"))
                }
                return value
            }
            let separators: [(Int, UInt8)] = [(4, UInt8(ascii: "-")), (7, UInt8(ascii: "-")), (13, UInt8(ascii: ":")), (16, UInt8(ascii: ":"))]
            guard separators.allSatisfy({ bytes[$0.0] == $0.1 }), bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: "t"),
                  let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
                  let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19)
            else { return nil }
            (self.year, self.month, self.day, self.hour, self.minute, self.second) = (year, month, day, hour, minute, second)

            var at = 19
            if bytes[at] == UInt8(ascii: ".") {
                at += 1
                let digitsStart = at
                while at < bytes.count, isDigit(bytes[at]) { at += 1 }
                guard at > digitsStart else { return nil }
            }
            guard at < bytes.count else { return nil }
            switch bytes[at] {
            case UInt8(ascii: "Z"), UInt8(ascii: "z"):
                guard at + 1 == bytes.count else { return nil }
            case UInt8(ascii: "+"), UInt8(ascii: "-"):
                guard at + 6 == bytes.count, bytes[at + 3] == UInt8(ascii: ":"),
                      let offsetHours = number(at + 1..<at + 3), let offsetMinutes = number(at + 4..<at + 6)
                else { return nil }
                (self.offsetHours, self.offsetMinutes) = (offsetHours, offsetMinutes)
            default:
                return nil
            }
        }

        /// What names no real moment, or nil: a month, day, hour, minute or second out of range, or
        /// an offset over 18 hours.
        var fault: String? {
            guard (1...12).contains(month) else { return "there is no month \(Self.two(month))" }
            let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
            let days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
            guard day >= 1 else { return "days of a month start at 01" }
            guard day <= days else {
                let digits = String(year)
                return "\(Self.months[month - 1]) \(String(repeating: "0", count: 4 - digits.count))\(digits) has \(days) days"
            }
            guard hour < 24 else { return "hours run from 00 to 23" }
            guard minute < 60 else { return "minutes run from 00 to 59" }
            guard second < 60 else { return "seconds run from 00 to 59 (a leap second is not taken)" }
            guard offsetMinutes < 60 else { return "the offset's minutes run from 00 to 59" }
            guard offsetHours < 18 || (offsetHours == 18 && offsetMinutes == 0) else { return "an offset is at most 18:00" }
            return nil
        }

        private static func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }

        /// In English whatever the server's locale, as the rest of an answer is.
        private static let months = [
            "January", "February", "March", "April", "May", "June",
            "July", "August", "September", "October", "November", "December",
        ]
    }
}
