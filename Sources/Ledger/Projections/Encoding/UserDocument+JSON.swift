import Foundation

extension UserDocument {
    /// The document's JSON, identical to `JSONEncoder` with `.sortedKeys`: every link writes a user's
    /// document. Manual grants are rare, so a document with any goes through `JSONEncoder`.
    func encodedJSON(fallback encoder: JSONEncoder) throws -> Data {
        guard state.grants.isEmpty else { return try encoder.encode(self) }
        var writer = JSONWriter(capacity: 96 + state.userId.utf8.count + state.chains.count * 40)
        writer.beginObject()
        writer.field("position", position)
        writer.key("state")
        writer.beginObject()
        writer.key("chains")
        writer.beginObject()
        for chain in state.chains.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
            writer.field(chain, state.chains[chain])
        }
        writer.endObject()
        writer.key("grants")
        writer.beginObject()
        writer.endObject()
        writer.field("userId", state.userId)
        writer.endObject()
        writer.endObject()
        return Data(writer.bytes)
    }
}
