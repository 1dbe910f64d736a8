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

    /// Whole milliseconds since 1970, rounded down, of a date the store keeps (microsecond precision):
    /// taken from its whole microseconds, so a date built from them gives the same value however
    /// it was read back.
    public static func milliseconds(_ date: Date) -> Int64 {
        let micros = micros(date)
        return micros >= 0 ? micros / 1000 : (micros - 999) / 1000
    }

    /// The date truncated to microsecond precision, as the store will keep it.
    public static func truncated(_ date: Date) -> Date {
        self.date(micros: Int64((date.timeIntervalSince1970 * 1_000_000).rounded(.down)))
    }
}
