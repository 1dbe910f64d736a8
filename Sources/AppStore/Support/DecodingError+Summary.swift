import Foundation

extension DecodingError {
    /// What was wrong with the input, in words a client can act on: the field and the fault, without
    /// the decoder's own description of Swift types and coding paths.
    public var summary: String {
        switch self {
        case .keyNotFound(let key, let context): "missing field \(Self.path(context.codingPath + [key]))"
        case .typeMismatch(let type, let context):
            Self.expectation(type).map { "\(Self.path(context.codingPath)) must be \($0)" } ?? "wrong type at \(Self.path(context.codingPath))"
        case .valueNotFound(let type, let context):
            "\(Self.path(context.codingPath)) must be \(Self.expectation(type) ?? "a value"), not null"
        case .dataCorrupted(let context) where context.codingPath.isEmpty: "not valid JSON"
        case .dataCorrupted(let context): "invalid value at \(Self.path(context.codingPath))"
        @unknown default: "the body could not be decoded"
        }
    }

    /// The JSON a field of Swift type `type` takes, in JSON's words; nil for a type of the model's own.
    private static func expectation(_ type: Any.Type) -> String? {
        switch type {
        case is String.Type, is Substring.Type: "a string"
        case is Bool.Type: "true or false"
        case is any BinaryInteger.Type: "an integer"
        case is any BinaryFloatingPoint.Type, is Decimal.Type: "a number"
        case is [Any].Type: "an array"
        case is [String: Any].Type: "an object"
        default: nil
        }
    }

    private static func path(_ keys: [any CodingKey]) -> String {
        guard !keys.isEmpty else { return "the top level" }
        return keys.enumerated().map { offset, key in
            if let index = key.intValue { return "[\(index)]" }
            return offset == 0 ? key.stringValue : "." + key.stringValue
        }.joined()
    }
}
