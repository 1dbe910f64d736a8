import Foundation

/// How deep an event's JSON may nest: objects and arrays inside one another at most `limit` deep,
/// SQLite's own bound (its JSON functions refuse deeper text, so its CHECK did). PostgreSQL took
/// several thousand levels and failed with a stack error past that, so the store refuses deeper text
/// itself, alike on both, before any statement.
enum JSONNesting {
    /// The deepest nesting stored: SQLite's `JSON_MAX_DEPTH`.
    static let limit = 1000

    /// Whether `raw` opens more than `limit` objects and arrays inside one another.
    ///
    /// Counts the openers first (two `memchr` runs, stopping past the limit): text with no more
    /// openers than the limit cannot nest deeper, which is every event the ledger writes. Only text
    /// with more is walked, skipping what strings hold.
    static func exceedsLimit(_ raw: UnsafeRawBufferPointer) -> Bool {
        guard openers(in: raw, stoppingAbove: limit) > limit else { return false }
        var depth = 0
        var inString = false
        var escaped = false
        for byte in raw {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""):
                inString = true
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
                if depth > limit { return true }
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
            default:
                break
            }
        }
        return false
    }

    /// How many `{` and `[` bytes `raw` holds, counting no further than one past `bound`.
    private static func openers(in raw: UnsafeRawBufferPointer, stoppingAbove bound: Int) -> Int {
        let braces = occurrences(of: UInt8(ascii: "{"), in: raw, stoppingAbove: bound)
        guard braces <= bound else { return braces }
        return braces + occurrences(of: UInt8(ascii: "["), in: raw, stoppingAbove: bound - braces)
    }

    /// How many times `byte` occurs in `raw`, counting no further than one past `bound`.
    private static func occurrences(of byte: UInt8, in raw: UnsafeRawBufferPointer, stoppingAbove bound: Int) -> Int {
        guard var cursor = raw.baseAddress else { return 0 }
        var left = raw.count
        var count = 0
        while left > 0, let hit = memchr(cursor, Int32(byte), left) {
            count += 1
            if count > bound { break }
            let next = UnsafeRawPointer(hit) + 1
            left -= next - cursor
            cursor = next
        }
        return count
    }
}
