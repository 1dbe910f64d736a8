import Foundation

/// A `NewEvent` checked once, before any database work, so retries reuse it.
///
/// Data and metadata are stored byte for byte as given and hashed as given. The database checks they
/// are JSON objects (a CHECK constraint); here only the cheap part: they must start with `{`.
struct PreparedEvent: Sendable {
    var event: NewEvent

    init(_ event: NewEvent) throws(EventStoreError) {
        guard !event.type.isEmpty else {
            throw EventStoreError(.invalidEvent, "event type must not be empty")
        }
        if let key = event.dedupeKey, key.isEmpty {
            throw EventStoreError(.invalidEvent, "a dedupe key must not be empty; leave it out instead")
        }
        try Self.requireObject(event.data, field: "data")
        try Self.requireObject(event.metadata, field: "metadata")
        self.event = event
    }

    /// The first non-space byte must open an object; the database validates the rest.
    static func requireObject(_ bytes: Data, field: String) throws(EventStoreError) {
        guard let first = bytes.first(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }), first == UInt8(ascii: "{") else {
            throw EventStoreError(.invalidEvent, "event \(field) must be a JSON object")
        }
        guard String(data: bytes, encoding: .utf8) != nil else {
            throw EventStoreError(.invalidEvent, "event \(field) must be UTF-8")
        }
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
