import Foundation

/// Converts between `Date` and the whole microseconds since 1970 that both adapters store.
///
/// PostgreSQL's `timestamptz` has microsecond precision; storing integers keeps the hash chain exact.
public enum Timestamp {
    /// Whole microseconds since 1970 for a date, rounded to the nearest microsecond.
    public static func micros(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1_000_000).rounded())
    }

    /// The date for whole microseconds since 1970.
    public static func date(micros: Int64) -> Date {
        Date(timeIntervalSince1970: Double(micros) / 1_000_000)
    }

    /// Whole milliseconds since 1970 of a date: its nearest whole microsecond, rounded down to the
    /// millisecond. A date the store kept (or one parsed from `.123Z`) gives the same value however it
    /// was built, where `floor(seconds * 1000)` can land a millisecond early on a binary fraction.
    public static func milliseconds(_ date: Date) -> Int64 {
        let micros = micros(date)
        return micros >= 0 ? micros / 1000 : (micros - 999) / 1000
    }

    /// The date truncated to microsecond precision, as the store will keep it.
    public static func truncated(_ date: Date) -> Date {
        self.date(micros: Int64((date.timeIntervalSince1970 * 1_000_000).rounded(.down)))
    }
}
