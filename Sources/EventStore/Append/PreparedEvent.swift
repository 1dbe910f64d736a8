import Foundation

/// A `NewEvent` validated and canonicalised once, before any database work, so retries reuse it.
struct PreparedEvent: Sendable {
    var event: NewEvent
    var canonicalData: Data
    var canonicalMetadata: Data

    init(_ event: NewEvent) throws(EventStoreError) {
        guard !event.type.isEmpty else {
            throw EventStoreError(.invalidEvent, "event type must not be empty")
        }
        if let key = event.dedupeKey, key.isEmpty {
            throw EventStoreError(.invalidEvent, "a dedupe key must not be empty; leave it out instead")
        }
        self.event = event
        self.canonicalData = try CanonicalJSON.canonicalize(event.data)
        self.canonicalMetadata = try CanonicalJSON.canonicalize(event.metadata, field: "metadata")
    }

    static func prepare(stream: String, _ events: [NewEvent]) throws(EventStoreError) -> [PreparedEvent] {
        guard !stream.isEmpty else {
            throw EventStoreError(.invalidEvent, "stream id must not be empty")
        }
        var prepared: [PreparedEvent] = []
        prepared.reserveCapacity(events.count)
        for event in events {
            prepared.append(try PreparedEvent(event))
        }
        return prepared
    }
}
