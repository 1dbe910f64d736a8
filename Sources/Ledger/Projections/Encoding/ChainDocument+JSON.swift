import Foundation

extension ChainDocument {
    /// The document's JSON, identical to `JSONEncoder` with `.sortedKeys` and several times faster:
    /// every ingest writes its chain's document and a replay writes every chain's.
    func encodedJSON() -> Data {
        var writer = JSONWriter(capacity: 256 + state.transactions.count * 420 + state.renewals.count * 300)
        writer.beginObject()
        writer.field("position", position)
        writer.key("state")
        state.write(to: &writer)
        writer.endObject()
        return Data(writer.bytes)
    }
}

extension ChainState {
    fileprivate func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.field("originalTransactionId", originalTransactionId)
        if !otherStreams.isEmpty {
            writer.key("otherStreams")
            writer.beginArray()
            for stream in otherStreams { writer.string(stream) }
            writer.endArray()
        }
        writer.key("renewals")
        writer.beginArray()
        for renewal in renewals {
            renewal.write(to: &writer) { $0.write(to: &$1) }
        }
        writer.endArray()
        if !transactionTokens.isEmpty {
            writer.key("transactionTokens")
            writer.beginObject()
            for id in transactionTokens.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
                guard let token = transactionTokens[id] else { continue }
                writer.field(id, token)
            }
            writer.endObject()
        }
        writer.key("transactions")
        writer.beginObject()
        for id in transactions.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
            guard let observed = transactions[id] else { continue }
            writer.key(id)
            observed.write(to: &writer) { $0.write(to: &$1) }
        }
        writer.endObject()
        writer.endObject()
    }
}

extension Observed {
    fileprivate func write(to writer: inout JSONWriter, value writeValue: (Value, inout JSONWriter) -> Void) {
        writer.beginObject()
        writer.field("assertedAt", assertedAt)
        writer.field("eventID", eventID)
        writer.key("value")
        writeValue(value, &writer)
        writer.endObject()
    }
}
