import AppStore
import EventStore
import Foundation

extension NewEvent {
    /// An event as the ledger stores it: `body` as data and where it came from as metadata, both JSON
    /// with sorted keys, so the same input always gives the same bytes (and hash).
    static func ledger(
        type: String,
        body: some Encodable,
        receivedAt: Date,
        context: IngestContext,
        facts: VerificationFacts? = nil,
        dedupeKey: String? = nil
    ) throws -> NewEvent {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return ledger(type: type, data: try encoder.encode(body), receivedAt: receivedAt, context: context, facts: facts, dedupeKey: dedupeKey)
    }

    /// An event whose body is already sorted-key JSON (a fact written by `JSONWriter`).
    static func ledger(
        type: String,
        data: Data,
        receivedAt: Date,
        context: IngestContext,
        facts: VerificationFacts? = nil,
        dedupeKey: String? = nil
    ) -> NewEvent {
        let metadata = EventMetadata(receivedAt: receivedAt, context: context, facts: facts)
        return NewEvent(type: type, data: data, metadata: metadata.encodedJSON(), dedupeKey: dedupeKey)
    }
}
