/// Readers for the value types of Apple's payloads, on top of the scanner's JSON values.
///
/// Each accepts exactly the JSON form Apple sends (a string, an integer, `null`); any other form
/// (`1.0` for an integer, digits in a string for a date) is `Unexpected`, and the payload is then
/// decoded by `JSONDecoder`, whose `Codable` conformances stay the reference.
extension JSONScanner {
    /// An open-set string value (`environment`, `type`, ...), or nil for `null`.
    mutating func readOptional<Value: RawRepresentable>(_ type: Value.Type) throws(Unexpected) -> Value? where Value.RawValue == String {
        guard let text = try readOptionalString() else { return nil }
        guard let value = Value(rawValue: text) else { throw Unexpected() }
        return value
    }

    /// An open-set integer value (`status`, `offerType`, ...), or nil for `null`.
    mutating func readOptional<Value: RawRepresentable>(_ type: Value.Type) throws(Unexpected) -> Value? where Value.RawValue == Int {
        guard let number = try readOptionalInt() else { return nil }
        guard let value = Value(rawValue: number) else { throw Unexpected() }
        return value
    }

    /// An `Int`, or nil for `null`.
    package mutating func readOptionalInt() throws(Unexpected) -> Int? {
        guard let number = try readOptionalInt64() else { return nil }
        guard let value = Int(exactly: number) else { throw Unexpected() }
        return value
    }

    /// Whole milliseconds since 1970, or nil for `null` (Xcode's fractional dates go to `JSONDecoder`,
    /// and so do counts outside `AppStoreDate.acceptedMilliseconds`, which it refuses).
    mutating func readOptionalDate() throws(Unexpected) -> AppStoreDate? {
        guard let milliseconds = try readOptionalInt64() else { return nil }
        guard AppStoreDate.acceptedMilliseconds.contains(milliseconds) else { throw Unexpected() }
        return AppStoreDate(millisecondsSince1970: milliseconds)
    }

    /// An array of strings, or nil for `null`.
    mutating func readOptionalStrings() throws(Unexpected) -> [String]? {
        if try readNull() { return nil }
        var strings: [String] = []
        try readArray { scanner throws(Unexpected) in strings.append(try scanner.readString()) }
        return strings
    }
}
