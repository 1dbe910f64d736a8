import AppStore
import Foundation

/// Test time in days after 2026-01-01T00:00:00Z, in the forms Apple's payloads and the API use.
public enum Day {
    /// 2026-01-01T00:00:00Z in Unix milliseconds.
    public static let zero: Int64 = 1_767_225_600_000
    /// One day in milliseconds.
    public static let length: Int64 = 86_400_000

    /// Unix milliseconds `days` after day zero.
    public static func ms(_ days: Double) -> Int64 { zero + Int64(days * Double(length)) }
    /// The date `days` after day zero.
    public static func date(_ days: Double) -> Date { Date(timeIntervalSince1970: Double(ms(days)) / 1000) }
    /// Apple's date form.
    public static func apple(_ days: Double) -> AppStoreDate { AppStoreDate(millisecondsSince1970: ms(days)) }
    /// ISO 8601, as query parameters take it.
    public static func iso(_ days: Double) -> String { date(days).formatted(.iso8601) }
}
