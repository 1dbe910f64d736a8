import Foundation

extension OwnerDocument {
    /// The owner's JSON, identical to `JSONEncoder` with `.sortedKeys`: every ingest that links a
    /// chain writes one inside its batch, where `JSONEncoder` cost more than the rest of the link.
    func encodedJSON() -> Data {
        var writer = JSONWriter(capacity: 32 + userId.utf8.count)
        writer.beginObject()
        writer.field("userId", userId)
        writer.endObject()
        return Data(writer.bytes)
    }
}
