import Foundation

extension UserLink {
    /// The link's JSON, identical to `JSONEncoder` with `.sortedKeys`: written inside the ingest
    /// transaction, once the chain's owner is known under its lock.
    func encodedJSON() -> Data {
        var writer = JSONWriter(capacity: 160)
        writer.beginObject()
        writer.field("originalTransactionId", originalTransactionId)
        writer.field("outcome", outcome.rawValue)
        writer.field("previousUserId", previousUserId)
        writer.field("source", source)
        writer.field("userId", userId)
        writer.endObject()
        return Data(writer.bytes)
    }
}
