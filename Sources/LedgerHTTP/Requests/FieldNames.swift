/// The names of a JSON object's fields, whatever they are: what `RequestBody` checks against the
/// fields an endpoint takes before the body is decoded.
struct FieldNames: Decodable, Sendable {
    var names: [String]

    private struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        names = try decoder.container(keyedBy: AnyKey.self).allKeys.map(\.stringValue)
    }
}
