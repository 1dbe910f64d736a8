/// A boolean as the legacy receipt APIs write it: `"true"`/`"false"`, `"1"`/`"0"`, or a JSON bool or number.
///
/// verifyReceipt and V1 notifications mix these spellings field by field; this keeps the original
/// text in ``rawValue`` and offers ``boolValue`` for decisions.
public struct LegacyFlag: RawRepresentable, Codable, Hashable, Sendable, CustomStringConvertible, ExpressibleByBooleanLiteral {
    /// The flag as Apple wrote it (a JSON bool or number is kept as its text form).
    public var rawValue: String

    /// Wraps a raw spelling.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// Builds `"true"` or `"false"`.
    /// - Why: convenient for fakes and tests that build legacy bodies by value.
    public init(booleanLiteral value: Bool) {
        self.rawValue = value ? "true" : "false"
    }

    /// `true` for `"true"`/`"1"`, `false` for `"false"`/`"0"`, `nil` for anything else.
    public var boolValue: Bool? {
        switch rawValue.lowercased() {
        case "true", "1": true
        case "false", "0": false
        default: nil
        }
    }

    /// The raw spelling.
    public var description: String { rawValue }

    /// Accepts a string, a bool or an integer.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let text = try? container.decode(String.self) {
            self.rawValue = text
        } else if let flag = try? container.decode(Bool.self) {
            self.rawValue = flag ? "true" : "false"
        } else {
            self.rawValue = String(try container.decode(Int.self))
        }
    }

    /// Encodes the raw spelling as a string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
