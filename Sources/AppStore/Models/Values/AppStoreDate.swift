import Foundation

/// An instant as Apple encodes it in JWS payloads: whole milliseconds since 1970-01-01 UTC.
///
/// Kept as an exact integer (not a `Date`) so ids and dedupe keys built from it never drift by a
/// rounding error. StoreKit Testing in Xcode emits fractional milliseconds (`1697679936049.7297`):
/// they are accepted and truncated toward zero. Encodes back as an integer.
public struct AppStoreDate: Hashable, Comparable, Sendable, Codable, CustomStringConvertible, ExpressibleByIntegerLiteral {
    /// Milliseconds since the Unix epoch, possibly negative (Xcode uses year 1 for "unknown").
    public var millisecondsSince1970: Int64

    /// Wraps a millisecond count.
    /// - Why: the form Apple sends; use it to build payloads by value in tests.
    public init(millisecondsSince1970: Int64) {
        self.millisecondsSince1970 = millisecondsSince1970
    }

    /// Allows `purchaseDate: 1698148900000` in payload literals.
    public init(integerLiteral value: Int64) {
        self.millisecondsSince1970 = value
    }

    /// Converts a `Date`, truncating below the millisecond.
    /// - Why: lets callers pass a clock reading where Apple's representation is expected.
    public init(_ date: Date) {
        let milliseconds = (date.timeIntervalSince1970 * 1000).rounded(.towardZero)
        self.millisecondsSince1970 = Int64(exactly: milliseconds) ?? (milliseconds < 0 ? .min : .max)
    }

    /// The same instant as a Foundation `Date`.
    public var date: Date {
        Date(timeIntervalSince1970: Double(millisecondsSince1970) / 1000)
    }

    /// The millisecond counts accepted from Apple: up to the end of year 9999 on either side of 1970.
    /// - Why: Apple's dates are real instants (Xcode's "unknown" is year 1); a count near `Int64.max`
    ///   is a malformed input, and refusing it here keeps every later sum of dates from overflowing.
    public static let acceptedMilliseconds: ClosedRange<Int64> = -253_402_300_799_999...253_402_300_799_999

    /// Orders instants chronologically.
    public static func < (lhs: AppStoreDate, rhs: AppStoreDate) -> Bool {
        lhs.millisecondsSince1970 < rhs.millisecondsSince1970
    }

    /// Decodes a JSON number of milliseconds (truncating any fractional part) or a string of digits,
    /// within `acceptedMilliseconds`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let whole: Int64
        if let integer = try? container.decode(Int64.self) {
            whole = integer
        } else if let text = try? container.decode(String.self) {
            // verifyReceipt and V1 notifications send `*_ms` dates as strings of digits.
            guard let integer = Int64(text) else {
                throw DecodingError.dataCorruptedError(
                    in: container,
                    debugDescription: "\"\(text)\" is not a millisecond timestamp"
                )
            }
            whole = integer
        } else {
            let value = try container.decode(Double.self)
            guard value.isFinite, let integer = Int64(exactly: value.rounded(.towardZero)) else {
                throw DecodingError.dataCorruptedError(
                    in: container,
                    debugDescription: "\(value) is not a representable millisecond timestamp"
                )
            }
            whole = integer
        }
        guard Self.acceptedMilliseconds.contains(whole) else {
            throw DecodingError.dataCorruptedError(
                in: container,
                debugDescription: "\(whole) milliseconds is outside the years Apple's dates can name (up to 9999)"
            )
        }
        self.millisecondsSince1970 = whole
    }

    /// Encodes as an integer number of milliseconds.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(millisecondsSince1970)
    }

    /// ISO 8601 in UTC with milliseconds (`2026-11-21T10:00:00.000Z`), for logs and error messages:
    /// the exact millisecond, on the proleptic Gregorian calendar (``GregorianTimestamp``).
    public var description: String {
        GregorianTimestamp.text(millisecondsSince1970: millisecondsSince1970)
    }
}
