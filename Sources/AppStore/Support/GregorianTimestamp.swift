/// Whole milliseconds since 1970 as ISO 8601 text in UTC (`2026-11-21T10:00:00.000Z`), and calendar
/// dates as days since 1970, on the proleptic Gregorian calendar RFC 3339 uses, in integers.
///
/// Foundation's `ISO8601FormatStyle` goes through a `Date` (a double, so many exact milliseconds
/// before 1970 came out one early) and a calendar that is Julian before October 1582, so Xcode's
/// "unknown" date, 0001-01-01, came out as 0001-01-03.
public enum GregorianTimestamp {
    /// The text of a millisecond count: `YYYY-MM-DDTHH:MM:SS.mmmZ`. A year outside 0000 to 9999,
    /// which RFC 3339 cannot write, takes ISO 8601's expanded form: a sign and at least four digits
    /// (year 0 is 1 BC, year -1 is 2 BC).
    public static func text(millisecondsSince1970 total: Int64) -> String {
        // Floor division without overflow at Int64.min: the day the moment falls in, then its time.
        var days = total / 86_400_000
        var rest = total % 86_400_000
        if rest < 0 {
            rest += 86_400_000
            days -= 1
        }
        let (year, month, day) = civil(daysSince1970: days)
        let hour = rest / 3_600_000
        rest %= 3_600_000
        let minute = rest / 60_000
        rest %= 60_000
        let second = rest / 1000
        let millisecond = rest % 1000
        let yearDigits = max(4, decimalDigits(year.magnitude))
        let sign: UInt8? = year < 0 ? UInt8(ascii: "-") : year > 9999 ? UInt8(ascii: "+") : nil
        return String(unsafeUninitializedCapacity: 21 + yearDigits + 1) { text in
            var at = 0
            func put(_ value: UInt64, width: Int) {
                var value = value
                for index in stride(from: at + width - 1, through: at, by: -1) {
                    text[index] = UInt8(ascii: "0") + UInt8(value % 10)
                    value /= 10
                }
                at += width
            }
            func put(_ value: Int64, width: Int) { put(UInt64(value), width: width) }
            func put(_ byte: Unicode.Scalar) {
                text[at] = UInt8(ascii: byte)
                at += 1
            }
            if let sign {
                text[at] = sign
                at += 1
            }
            put(year.magnitude, width: yearDigits); put("-"); put(month, width: 2); put("-"); put(day, width: 2)
            put("T"); put(hour, width: 2); put(":"); put(minute, width: 2); put(":"); put(second, width: 2)
            put("."); put(millisecond, width: 3); put("Z")
            return at
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
    /// `month` runs 1 to 12 and `day` from 1; a day past its month's end counts on into the next.
    public static func daysSince1970(year: Int64, month: Int64, day: Int64) -> Int64 {
        let year = month <= 2 ? year - 1 : year
        let era = (year >= 0 ? year : year - 399) / 400
        let yearOfEra = year - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The proleptic Gregorian date of a day count since 1970-01-01 (Howard Hinnant's `civil_from_days`).
    static func civil(daysSince1970 days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }

    private static func decimalDigits(_ value: UInt64) -> Int {
        var value = value
        var digits = 1
        while value >= 10 {
            value /= 10
            digits += 1
        }
        return digits
    }
}
