/// Encodes an optional as an explicit `null` instead of leaving the key out, so clients read a stable
/// set of keys (synthesised `Encodable` would skip nil optionals).
@propertyWrapper
struct Nullable<Value: Encodable & Sendable>: Encodable, Sendable {
    var wrappedValue: Value?

    init(wrappedValue: Value?) {
        self.wrappedValue = wrappedValue
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let wrappedValue {
            try container.encode(wrappedValue)
        } else {
            try container.encodeNil()
        }
    }
}
