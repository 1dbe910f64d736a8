import Foundation

extension DecodingError {
    /// What was wrong with the input, in words a client can act on: the field and the fault, without
    /// the decoder's own description of Swift types and coding paths.
    public var summary: String {
        switch self {
        case .keyNotFound(let key, let context): "missing field \(Self.path(context.codingPath + [key]))"
        case .typeMismatch(let type, let context):
            // Foundation reports a null where a true/false belongs as a type mismatch, not a missing value.
            Self.expectation(type).map { "\(Self.path(context.codingPath)) must be \($0)\(Self.foundNull(context) ? ", not null" : "")" }
                ?? "wrong type at \(Self.path(context.codingPath))"
        case .valueNotFound(let type, let context):
            "\(Self.path(context.codingPath)) must be \(Self.expectation(type) ?? "a value"), not null"
        case .dataCorrupted(let context) where context.codingPath.isEmpty: "not valid JSON"
        case .dataCorrupted(let context): "invalid value at \(Self.path(context.codingPath))"
        @unknown default: "the body could not be decoded"
        }
    }

    /// ``summary``, except that text that is not JSON (`data` is what was decoded) is told where it
    /// stops being JSON, which the decoder does not say. That comes first: the decoder reads a
    /// trailing comma or a name given twice leniently, and a field's fault told instead (a missing
    /// field in `{"user_id":"u1",}`) would be fixed only to meet the fault next. Text read leniently
    /// as a value of the wrong kind (`[{"a":1,"a":2}]`) is told both, its kind first, in the words
    /// of `wrongKind` when given ("the body must be a JSON object"); so is text the decoder cannot
    /// read at all that opens another kind of value (`[1`, `5,`).
    public func summary(of data: some Collection<UInt8>, wrongKind: String? = nil) -> String {
        let said = isWrongKindAtTopLevel ? wrongKind ?? summary : summary
        // Only on a failure, so a body that decodes is not scanned here.
        guard let fault = JSONSyntaxFault.findAccepting(Data(data)) else { return said }
        if isWrongKindAtTopLevel { return "\(said), and the text is not valid JSON: \(fault)" }
        if JSONSyntaxFault.opensOtherThanObject(data) {
            return "\(wrongKind ?? "the top level must be an object"), and the text is not valid JSON: \(fault)"
        }
        return "not valid JSON: \(fault)"
    }

    /// Whether the decoder read a whole value, but not of the kind the top level must be.
    public var isWrongKindAtTopLevel: Bool {
        switch self {
        case .typeMismatch(_, let context), .valueNotFound(_, let context): context.codingPath.isEmpty
        default: false
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

    /// Whether the decoder's description says it met a null (the only place that says so for a Bool).
    private static func foundNull(_ context: Context) -> Bool {
        context.debugDescription.hasSuffix("found null instead.")
    }

    private static func path(_ keys: [any CodingKey]) -> String {
        guard !keys.isEmpty else { return "the top level" }
        return keys.enumerated().map { offset, key in
            if let index = key.intValue { return "[\(index)]" }
            return offset == 0 ? key.stringValue : "." + key.stringValue
        }.joined()
    }
}
