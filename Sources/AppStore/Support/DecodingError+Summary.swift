import Foundation

extension DecodingError {
    /// What was wrong with the input, in words a client can act on: the field and the fault, without
    /// the decoder's own description of Swift types and coding paths.
    public var summary: String {
        switch self {
        case .keyNotFound(let key, let context): "missing field \(Self.path(context.codingPath + [key]))"
        case .typeMismatch(_, let context), .valueNotFound(_, let context): "wrong type at \(Self.path(context.codingPath))"
        case .dataCorrupted(let context) where context.codingPath.isEmpty: "not valid JSON"
        case .dataCorrupted(let context): "invalid value at \(Self.path(context.codingPath))"
        @unknown default: "the body could not be decoded"
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
