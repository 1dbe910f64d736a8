import EventStore
import Foundation
@testable import LedgerHTTP
import Testing

/// `APIDate` reads and writes the API's dates on the proleptic Gregorian calendar, to the millisecond
/// (`GregorianTimestampTests` checks the text itself).
struct APIDateTests {
    /// Every millisecond an answer can name reads back as itself, before 1970 and October 1582 too
    /// (integrator walkthrough: `at=1969-12-31T23:59:59.999Z` came back as .998, and
    /// `at=1582-10-10T00:00:00Z` as October 20).
    @Test func everyNamedMillisecondReadsBackAsItself() throws {
        var generator = SystemRandomNumberGenerator()
        var samples: [Int64] = [APIDate.firstMillisecond, APIDate.endMillisecond - 1, -1, 0, -12_219_724_800_000]
        for _ in 0..<20_000 {
            samples.append(Int64.random(in: APIDate.firstMillisecond..<APIDate.endMillisecond, using: &generator))
        }
        var wrong: [String] = []
        for milliseconds in samples {
            let text = APIDate.string(millisecondsSince1970: milliseconds)
            guard let date = APIDate.parse(text), Timestamp.milliseconds(date) == milliseconds, APIDate.string(date) == text else {
                wrong.append("\(milliseconds) \(text): \(String(describing: APIDate.parse(text)))")
                continue
            }
        }
        #expect(wrong.isEmpty, "\(wrong.prefix(5))")
        #expect(APIDate.parse("1582-10-10T00:00:00Z").map(APIDate.string) == "1582-10-10T00:00:00.000Z")
        #expect(APIDate.parse("1969-12-31T23:59:59.999Z").map(APIDate.string) == "1969-12-31T23:59:59.999Z")
        #expect(APIDate.parse("0001-01-01T00:00:00Z").map(Timestamp.milliseconds) == -62_135_596_800_000)
        #expect(APIDate.parse("1960-06-15T14:00:00.123456+02:00").map(Timestamp.micros) == -301_233_599_876_544)
    }

    /// `at` and `as_of` are compared in whole milliseconds with stored times: every `.SSS` a client
    /// sends must come back as exactly that millisecond (`floor(seconds * 1000)` lost one for some).
    @Test func everyMillisecondOfAParsedDateIsTheOneSent() throws {
        let base = try #require(APIDate.parse("2026-11-21T10:00:00Z"))
        var wrong: [Int] = []
        for milliseconds in 0..<1000 {
            let parsed = try #require(APIDate.parse("2026-11-21T10:00:00.\(String(format: "%03d", milliseconds))Z"))
            if Timestamp.milliseconds(parsed) != Timestamp.milliseconds(base) + Int64(milliseconds) { wrong.append(milliseconds) }
        }
        #expect(wrong.isEmpty, "\(wrong.prefix(10))")
    }

    /// Foundation's parser rolls impossible fields over (February 30 to March 2, hour 24 to the next
    /// day); a query date must name a real moment or be refused.
    @Test func onlyRealCalendarMomentsParse() {
        for text in ["2026-02-30T00:00:00Z", "2026-02-29T00:00:00Z", "2026-04-31T00:00:00Z", "2026-13-01T00:00:00Z",
                     "2026-00-10T00:00:00Z", "2026-01-00T00:00:00Z", "2026-01-01T24:00:00Z", "2026-01-01T23:60:00Z",
                     "2026-01-01T23:59:60Z", "2026-1-01T00:00:00Z", "2026-01-01"] {
            #expect(APIDate.parse(text) == nil, "\(text)")
        }
        for text in ["2024-02-29T00:00:00Z", "2000-02-29T12:00:00.500Z", "2026-12-31T23:59:59.999Z", "2026-11-21T10:00:00+02:00"] {
            #expect(APIDate.parse(text) != nil, "\(text)")
        }
        #expect(APIDate.parse("1900-02-29T00:00:00Z") == nil)
    }

    /// A text in the form whose field names no real moment is told which field, since it looks right
    /// at a glance; a text not in the form is only told the form.
    @Test(arguments: [
        ("2026-02-30T00:00:00Z", APIDate.Refusal.field("February 2026 has 28 days")),
        ("2024-02-30T00:00:00Z", .field("February 2024 has 29 days")),
        ("0900-04-31T00:00:00Z", .field("April 0900 has 30 days")),
        ("2026-13-01T00:00:00Z", .field("there is no month 13")),
        ("2026-00-10T00:00:00Z", .field("there is no month 00")),
        ("2026-01-00T00:00:00Z", .field("days of a month start at 01")),
        ("2026-01-01T24:00:00Z", .field("hours run from 00 to 23")),
        ("2026-01-01T23:60:00Z", .field("minutes run from 00 to 59")),
        ("2026-01-01T23:59:60Z", .field("seconds run from 00 to 59 (a leap second is not taken)")),
        ("2026-11-21T10:00:00+02:60", .field("the offset's minutes run from 00 to 59")),
        ("2026-11-21T10:00:00+18:01", .field("an offset is at most 18:00")),
        ("0001-01-01T00:00:00+18:00", .range),
        ("9999-12-31T23:59:59-18:00", .range),
        ("2026-13-01T00:00:00Zjunk", .form),
        ("2026-1-01T00:00:00Z", .form),
        ("2026-11-21T10:00:00+0200", .form),
        ("2026-11-21", .form),
    ])
    func aRefusedFieldIsNamed(text: String, refusal: APIDate.Refusal) {
        #expect(APIDate.read(text) == .failure(refusal))
    }

    /// Foundation's parser stops where the date ends and ignores the rest, and takes zone forms
    /// RFC 3339 has not: a query date must be the whole text, as `openapi.yaml`'s pattern says.
    @Test func onlyAWholeRFC3339DateTimeParses() throws {
        for text in ["2026-11-21T10:00:00Zjunk", "2026-11-21T10:00:00Z ", "2026-11-21T10:00:00.000Z!!", "2026-11-21T10:00:00UTC",
                     "2026-11-21T10:00:00GMT", "2026-11-21T10:00:00+02", "2026-11-21T10:00:00+0200", "2026-11-21T10:00:00+02:00:30",
                     "2026-11-21T10:00:00+18:01", "2026-11-21T10:00:00+19:00", "2026-11-21T10:00:00+02:60", "2026-11-21T10:00:00.Z",
                     "2026-11-21T10:00:00", "2026-11-21T10:00:00.5", "2026-11-21T10:00:00,5Z", "2026-11-21 10:00:00Z"] {
            #expect(APIDate.parse(text) == nil, "\(text)")
        }
        let utc = try #require(APIDate.parse("2026-11-21T10:00:00Z"))
        #expect(APIDate.parse("2026-11-21t10:00:00z") == utc)
        #expect(APIDate.parse("2026-11-21T12:30:00+02:30") == utc)
        #expect(APIDate.parse("2026-11-21T07:00:00-03:00") == utc)
        #expect(APIDate.parse("2026-11-21T10:00:00.5Z") == utc.addingTimeInterval(0.5))
        #expect(APIDate.parse("2026-11-22T04:00:00+18:00") == utc)
    }

    /// The store keeps microseconds: digits past them are dropped, not rounded into the next
    /// millisecond (which `as_of` would then count), and any number of them is RFC 3339.
    @Test func digitsPastTheMicrosecondAreDropped() throws {
        let base = try #require(APIDate.parse("2026-11-21T10:00:05.435999Z"))
        #expect(try #require(APIDate.parse("2026-11-21T10:00:05.4359999Z")) == base)
        #expect(try #require(APIDate.parse("2026-11-21T10:00:05.4359999999999Z")) == base)
        #expect(APIDate.string(base) == "2026-11-21T10:00:05.435Z")
        #expect(APIDate.string(try #require(APIDate.parse("2026-11-21T10:00:00.9999999Z"))) == "2026-11-21T10:00:00.999Z")
        #expect(APIDate.parse("2026-11-21T10:00:05.4360000000Z") == APIDate.parse("2026-11-21T10:00:05.436Z"))
        #expect(APIDate.parse("2026-11-21T12:00:05.4359999+02:00") == base)
    }

    /// An answer names its moments in RFC 3339, which has four-digit years: a query moment outside
    /// years 0001 to 9999 once its offset is applied is refused rather than echoed as -0001 or 10000.
    @Test func onlyMomentsInYearsOneToNineThousandNineHundredNinetyNineParse() {
        for text in ["0000-01-01T00:00:00Z", "0001-01-01T00:00:00+18:00", "9999-12-31T23:59:59-18:00"] {
            #expect(APIDate.parse(text) == nil, "\(text)")
        }
        for text in ["0001-01-01T00:00:00Z", "9999-12-31T23:59:59.999Z", "0001-01-01T18:00:00+18:00"] {
            #expect(APIDate.parse(text) != nil, "\(text)")
        }
        // A `Date` holds about 30 µs there, so these round up into year 10000 (security walkthrough:
        // they were refused as out of range while .9999 was taken); each is the last second's, and
        // names a moment in it.
        for text in ["9999-12-31T23:59:59.99999Z", "9999-12-31T23:59:59.999999Z", "9999-12-31T23:59:59.999999999Z", "9999-12-31T21:59:59.99999-02:00"] {
            let date = APIDate.parse(text)
            #expect(date.map(APIDate.string)?.hasPrefix("9999-12-31T23:59:59.99") == true, "\(text): \(String(describing: date))")
        }
        // Past the last second, the fraction's rounding is not what put it out of range.
        #expect(APIDate.parse("9999-12-31T22:59:59.99999-01:01") == nil)
        // Elsewhere past about year 5000 too, digits past the millisecond are dropped, not rounded
        // into the next second (re-test: 5000-06-01T12:00:00.999999Z read as 12:00:01.000).
        for (text, shown) in [
            ("5000-06-01T12:00:00.999999Z", "5000-06-01T12:00:00.999Z"),
            ("8000-06-01T12:00:00.99999Z", "8000-06-01T12:00:00.999Z"),
            ("9999-12-31T23:58:59.99999Z", "9999-12-31T23:58:59.999Z"),
            ("9999-12-31T23:59:59.99999+00:01", "9999-12-31T23:58:59.999Z"),
            ("9999-12-31T23:59:59.001Z", "9999-12-31T23:59:59.001Z"),
        ] {
            #expect(APIDate.parse(text).map(APIDate.string) == shown, "\(text)")
        }
    }

    @Test func aMillisecondTheStyleTruncatedIsWrittenAsSent() {
        let date = Date(timeIntervalSince1970: Double(3_833_107_742_699) / 1000)
        #expect(APIDate.string(date) == "2091-06-19T16:09:02.699Z")
    }

    /// An event's `recorded_at` has microseconds; `as_of` counts it in the millisecond it falls in,
    /// so it is shown in that one (.000600 is .000, not rounded up into .001, which `as_of=.000`
    /// includes), before 1970 too.
    @Test func fractionsAreShownInTheMillisecondTheyFallIn() {
        #expect(APIDate.string(Date(timeIntervalSince1970: 1.0006)) == "1970-01-01T00:00:01.000Z")
        #expect(APIDate.string(Date(timeIntervalSince1970: 1.0004)) == "1970-01-01T00:00:01.000Z")
        #expect(APIDate.string(Date(timeIntervalSince1970: 1.0009999)) == "1970-01-01T00:00:01.001Z")
        #expect(APIDate.string(Date(timeIntervalSince1970: 1.001)) == "1970-01-01T00:00:01.001Z")
        #expect(APIDate.string(Date(timeIntervalSince1970: -0.0004)) == "1969-12-31T23:59:59.999Z")
        #expect(APIDate.string(Date(timeIntervalSince1970: -0.001)) == "1969-12-31T23:59:59.999Z")
        #expect(APIDate.string(Date(timeIntervalSince1970: -86_400)) == "1969-12-31T00:00:00.000Z")
    }
}

extension APIDate {
    /// ``read(_:)`` without the reason, as these tests need only the date (the server always tells why).
    static func parse(_ text: String) -> Date? {
        try? read(text).get()
    }
}
