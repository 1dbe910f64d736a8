import Foundation

/// Dates in the API: ISO 8601 UTC with milliseconds, e.g. `2026-11-21T10:00:00.000Z`.
enum APIDate {
    static let style = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    static func string(_ date: Date) -> String { style.format(date) }

    /// Parses a query parameter; accepts with or without fractional seconds.
    static func parse(_ text: String) -> Date? {
        if let date = try? style.parse(text) { return date }
        return try? Date.ISO8601FormatStyle().parse(text)
    }
}
