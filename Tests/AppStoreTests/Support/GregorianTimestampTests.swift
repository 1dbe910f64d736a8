@testable import AppStore
import Foundation
import Testing

/// `GregorianTimestamp`: the exact text of a millisecond, on the proleptic Gregorian calendar.
struct GregorianTimestampTests {
    /// From October 1582 on, Foundation's calendar is Gregorian and exact on whole seconds, so it
    /// checks the day and time; the milliseconds are the sample's own digits, before 1970 too.
    @Test func agreesWithFoundationOnWholeSecondsSinceTheGregorianReform() {
        var generator = SystemRandomNumberGenerator()
        var samples: [Int64] = [0, -1, -999, -1000, -1001, 951_825_600_007, 3_833_107_742_699, 253_402_300_799_999, -12_219_292_800_000]
        for _ in 0..<20_000 { samples.append(Int64.random(in: -12_219_292_800_000...253_402_300_799_999, using: &generator)) }
        let style = Date.ISO8601FormatStyle()
        var mismatches: [String] = []
        for milliseconds in samples {
            let (seconds, millisecond) = milliseconds.quotientAndRemainder(dividingBy: 1000)
            let (second, fraction) = millisecond < 0 ? (seconds - 1, millisecond + 1000) : (seconds, millisecond)
            let expected = style.format(Date(timeIntervalSince1970: Double(second))).dropLast() + String(format: ".%03dZ", Int(fraction))
            let text = GregorianTimestamp.text(millisecondsSince1970: milliseconds)
            if text != expected { mismatches.append("\(milliseconds): \(text) vs \(expected)") }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(5))")
    }

    /// Dates before 1970 were written a millisecond early every other time, and dates before October
    /// 1582 on the Julian calendar (integrator walkthrough). The expected values are Python's
    /// proleptic Gregorian `datetime`.
    @Test(arguments: [
        (Int64(-1), "1969-12-31T23:59:59.999Z"),
        (-301_233_599_877, "1960-06-15T12:00:00.123Z"),
        (-1_213_837_718_163, "1931-07-15T22:51:21.837Z"),
        (-12_219_379_200_000, "1582-10-14T00:00:00.000Z"),
        (-12_220_243_200_000, "1582-10-04T00:00:00.000Z"),
        (-14_831_769_600_000, "1500-01-01T00:00:00.000Z"),
        (-62_135_596_800_000, "0001-01-01T00:00:00.000Z"),
        (951_825_600_007, "2000-02-29T12:00:00.007Z"),
        (253_402_300_799_999, "9999-12-31T23:59:59.999Z"),
    ])
    func writesTheExactMillisecondOnTheProlepticGregorianCalendar(_ milliseconds: Int64, _ text: String) {
        #expect(GregorianTimestamp.text(millisecondsSince1970: milliseconds) == text)
        #expect(AppStoreDate(millisecondsSince1970: milliseconds).description == text)
    }

    /// Years RFC 3339 cannot write take ISO 8601's expanded form; year 0 (1 BC) is a leap year.
    @Test func yearsOutsideFourDigitsTakeASign() {
        let yearOne: Int64 = -62_135_596_800_000
        #expect(GregorianTimestamp.text(millisecondsSince1970: yearOne - 1) == "0000-12-31T23:59:59.999Z")
        #expect(GregorianTimestamp.text(millisecondsSince1970: yearOne - 366 * 86_400_000) == "0000-01-01T00:00:00.000Z")
        #expect(GregorianTimestamp.text(millisecondsSince1970: yearOne - 366 * 86_400_000 - 1) == "-0001-12-31T23:59:59.999Z")
        #expect(GregorianTimestamp.text(millisecondsSince1970: 253_402_300_800_000) == "+10000-01-01T00:00:00.000Z")
        // Apple's whole accepted range, and Int64's, are written without trapping.
        #expect(GregorianTimestamp.text(millisecondsSince1970: AppStoreDate.acceptedMilliseconds.lowerBound).hasPrefix("-"))
        #expect(GregorianTimestamp.text(millisecondsSince1970: .min).hasPrefix("-"))
        #expect(GregorianTimestamp.text(millisecondsSince1970: .max).hasPrefix("+"))
    }

    /// `daysSince1970` is the inverse of the text's calendar, day by day over both eras' edges.
    @Test func daysAndDatesAreInverses() {
        for days in Int64(-800_000)...Int64(-700_000) where days % 7 == 0 {
            let (year, month, day) = GregorianTimestamp.civil(daysSince1970: days)
            #expect(GregorianTimestamp.daysSince1970(year: year, month: month, day: day) == days)
        }
        for days in Int64(-200_000)...Int64(3_000_000) where days % 97 == 0 {
            let (year, month, day) = GregorianTimestamp.civil(daysSince1970: days)
            #expect(GregorianTimestamp.daysSince1970(year: year, month: month, day: day) == days)
        }
        #expect(GregorianTimestamp.daysSince1970(year: 1970, month: 1, day: 1) == 0)
        #expect(GregorianTimestamp.daysSince1970(year: 2000, month: 3, day: 1) == 11_017)
        #expect(GregorianTimestamp.daysSince1970(year: 1, month: 1, day: 1) == -719_162)
    }
}
