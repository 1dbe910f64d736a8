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
        let metadata = EventMetadata(receivedAt: receivedAt, context: context, facts: facts)
        return NewEvent(type: type, data: try encoder.encode(body), metadata: try encoder.encode(metadata), dedupeKey: dedupeKey)
    }
}
