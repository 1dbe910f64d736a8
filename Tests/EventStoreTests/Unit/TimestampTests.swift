import EventStore
import Foundation
import Testing

/// `Timestamp.milliseconds`: the millisecond a date counts in, for Apple's whole milliseconds and
/// for the store's microseconds alike.
struct TimestampTests {
    /// A date made from whole milliseconds counts in that millisecond, anywhere in Apple's range
    /// (re-test: 1859-07-31T22:19:28.376 was written .375, about one date in forty before 1970 and
    /// one in three before year 1).
    @Test func aDateMadeFromWholeMillisecondsCountsInThatMillisecond() {
        var generator = SystemRandomNumberGenerator()
        var samples: [Int64] = [-3_484_518_031_624, -1, 0, 1, -62_135_596_800_000, -253_402_300_799_999, 253_402_300_799_999]
        for _ in 0..<50_000 { samples.append(Int64.random(in: -253_402_300_799_999...253_402_300_799_999, using: &generator)) }
        let wrong = samples.filter { Timestamp.milliseconds(Date(timeIntervalSince1970: Double($0) / 1000)) != $0 }
        #expect(wrong.isEmpty, "\(wrong.prefix(5))")
    }

    /// The store's microseconds keep their millisecond: one a microsecond short of the next is not
    /// rounded into it, which `as_of` at that next millisecond would then count.
    @Test func storedMicrosecondsCountInTheMillisecondTheyFallIn() {
        for micros: Int64 in [1_764_000_000_123_999, 1_764_000_000_123_000, 1_764_000_000_123_500, -1, -999, -1000, -1001] {
            let expected = micros >= 0 ? micros / 1000 : (micros - 999) / 1000
            #expect(Timestamp.milliseconds(Timestamp.date(micros: micros)) == expected, "\(micros)")
        }
    }
}
