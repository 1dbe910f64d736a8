import Foundation

extension AppleFact {
    /// The fact's JSON, identical to `JSONEncoder` with `.sortedKeys` and several times faster: every
    /// ingest stores its fact, raw input included, as an event's data.
    func encodedJSON() -> Data {
        var writer = JSONWriter(capacity: raw.utf8.count + 256 + 420 * (transactions.count + renewals.count))
        writer.beginObject()
        writer.field("bundleId", bundleId)
        writer.field("notificationType", notificationType)
        writer.field("notificationUUID", notificationUUID)
        writer.field("raw", raw)
        writer.key("renewals")
        writer.beginArray()
        for renewal in renewals { renewal.write(to: &writer) }
        writer.endArray()
        writer.field("subtype", subtype)
        writer.key("transactions")
        writer.beginArray()
        for transaction in transactions { transaction.write(to: &writer) }
        writer.endArray()
        writer.field("userId", userId)
        writer.endObject()
        return Data(writer.bytes)
    }
}
