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
    ///
    /// A date made from whole milliseconds (Apple's, `Date(timeIntervalSince1970: ms / 1000)`) is the
    /// double nearest that millisecond, which far from 1970 can round to a microsecond below it, so
    /// the floor put it in the millisecond before (1859-07-31T22:19:28.376 as .375; re-test). It is
    /// counted in the next millisecond only when it is exactly the date that millisecond makes.
    public static func milliseconds(_ date: Date) -> Int64 {
        let micros = micros(date)
        let floor = micros >= 0 ? micros / 1000 : (micros - 999) / 1000
        // Compared as dates: a `Date` keeps its time from 2001, so its reading since 1970 is rounded again.
        if floor < Int64.max, Date(timeIntervalSince1970: Double(floor + 1) / 1000) == date { return floor + 1 }
        return floor
    }

    /// The date truncated to microsecond precision, as the store will keep it.
    public static func truncated(_ date: Date) -> Date {
        self.date(micros: Int64((date.timeIntervalSince1970 * 1_000_000).rounded(.down)))
    }
}
