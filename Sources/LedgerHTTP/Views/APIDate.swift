import AppStore
import EventStore
import Foundation

/// Dates in the API: ISO 8601 UTC with milliseconds, e.g. `2026-11-21T10:00:00.000Z`.
enum APIDate {
    /// The date's text, in the millisecond the ledger counts it in (`Timestamp.milliseconds`: its
    /// nearest microsecond, rounded down).
    ///
    /// Apple's dates are whole milliseconds, which a `Date` holds only to the nearest double:
    /// `ISO8601FormatStyle` truncated those and printed many of them a millisecond early (…742.699 as
    /// .698, and every other one before 1970), and its calendar is Julian before October 1582. An
    /// event's `recorded_at` has microseconds, and `as_of` counts it in the millisecond it falls in,
    /// so it is shown in that one, not rounded into the next.
    static func string(_ date: Date) -> String {
        string(millisecondsSince1970: Timestamp.milliseconds(date))
    }

    /// Formats whole milliseconds since 1970 on the proleptic Gregorian calendar (``GregorianTimestamp``).
    static func string(millisecondsSince1970 total: Int64) -> String {
        GregorianTimestamp.text(millisecondsSince1970: total)
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
    /// its calendar fields must name a real moment: Foundation's parser ignored what follows the
    /// part it read (`…Zjunk`), took zone forms RFC 3339 has not (`UTC`, `+0200`), rolled
    /// `2026-02-30` over to March 2, took hour 24 and second 60, and read dates before October 1582
    /// on the Julian calendar, so a typo would be evaluated at another date. So the moment is worked
    /// out here from the fields, in integers, on the proleptic Gregorian calendar RFC 3339 uses. A
    /// refused field is named, since the text then looks right at a glance.
    ///
    /// Digits past the microsecond are dropped, as the store keeps no finer time (rounding them
    /// would count `.4359999` in the next millisecond). The moment must fall in years 0001 to 9999
    /// once its offset is applied, so an answer can name it in RFC 3339.
    static func read(_ text: String) -> Result<Date, Refusal> {
        guard let fields = Fields(text) else { return .failure(.form) }
        if let fault = fields.fault { return .failure(.field(fault)) }
        let days = GregorianTimestamp.daysSince1970(year: Int64(fields.year), month: Int64(fields.month), day: Int64(fields.day))
        let offset = Int64(fields.offsetSign * (fields.offsetHours * 3600 + fields.offsetMinutes * 60))
        let seconds = days * 86_400 + Int64(fields.hour * 3600 + fields.minute * 60 + fields.second) - offset
        let named = seconds * 1000 + Int64(fields.microsecond / 1000)
        guard named >= firstMillisecond, named < endMillisecond else { return .failure(.range) }
        let date = Timestamp.date(micros: seconds * 1_000_000 + Int64(fields.microsecond))
        guard Timestamp.milliseconds(date) != named else { return .success(date) }
        // Far from 1970 a `Date` holds time only to microseconds or coarser (tens of them past about
        // year 5000), so a fraction such as .999999 would come out in the next millisecond or second
        // (.99999Z on the last second of 9999 in year 10000), where digits past the millisecond are
        // to be dropped, not rounded. The middle of the named millisecond is the moment nearest it
        // that reads as it.
        return .success(Date(timeIntervalSince1970: (Double(named) + 0.5) / 1000))
    }

    /// 0001-01-01T00:00:00Z and 10000-01-01T00:00:00Z, in milliseconds since 1970 on the proleptic
    /// Gregorian calendar: the first moment an answer can name in RFC 3339, and the end of the last.
    static let firstMillisecond = GregorianTimestamp.daysSince1970(year: 1, month: 1, day: 1) * 86_400_000
    static let endMillisecond = GregorianTimestamp.daysSince1970(year: 10_000, month: 1, day: 1) * 86_400_000

    /// The numbers of a text in the form `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`, before their
    /// ranges are checked.
    private struct Fields {
        var year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0
        /// The fraction's first six digits (any after them dropped).
        var microsecond = 0
        /// 1 east of UTC (and for `Z`), -1 west of it.
        var offsetSign = 1, offsetHours = 0, offsetMinutes = 0

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
                for place in 0..<6 {
                    let digit = digitsStart + place < at ? Int(bytes[digitsStart + place] - UInt8(ascii: "0")) : 0
                    microsecond = microsecond * 10 + digit
                }
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
                offsetSign = bytes[at] == UInt8(ascii: "-") ? -1 : 1
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
