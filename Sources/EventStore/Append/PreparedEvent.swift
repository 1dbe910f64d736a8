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
        try StoredName.require(event.type, field: "event type")
        if let key = event.dedupeKey {
            guard !key.isEmpty else {
                throw EventStoreError(.invalidEvent, "a dedupe key must not be empty; leave it out instead")
            }
            try StoredName.require(key, field: "dedupe key")
        }
        guard Int32(exactly: event.schemaVersion) != nil else {
            throw EventStoreError(.invalidEvent, "schema version \(event.schemaVersion) does not fit the store's 32-bit column")
        }
        try Self.requireObject(event.data, field: "data")
        try Self.requireObject(event.metadata, field: "metadata")
        self.event = event
    }

    /// The first non-space byte must open an object; the database validates the rest, but for a
    /// NUL byte, which JSON text never holds raw (SQLite's check stops reading at one, so `{}` and
    /// anything after it passed, and its text columns read back cut there), and for nesting deeper
    /// than the two databases both take (``JSONNesting``).
    static func requireObject(_ bytes: Data, field: String) throws(EventStoreError) {
        guard let first = bytes.first(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }), first == UInt8(ascii: "{") else {
            throw EventStoreError(.invalidEvent, "event \(field) must be a JSON object")
        }
        let (holdsNUL, nestsTooDeep) = bytes.withUnsafeBytes { raw in
            guard let start = raw.baseAddress else { return (false, false) }
            return (memchr(start, 0, raw.count) != nil, JSONNesting.exceedsLimit(raw))
        }
        guard !holdsNUL else {
            throw EventStoreError(.invalidEvent, "event \(field) must be a JSON object: it holds a NUL byte")
        }
        guard !nestsTooDeep else {
            throw EventStoreError(.invalidEvent, "event \(field) nests objects and arrays more than \(JSONNesting.limit) deep")
        }
        guard String(data: bytes, encoding: .utf8) != nil else {
            throw EventStoreError(.invalidEvent, "event \(field) must be UTF-8")
        }
    }

    static func prepare(stream: String, _ events: [NewEvent]) throws(EventStoreError) -> [PreparedEvent] {
        guard !stream.isEmpty else {
            throw EventStoreError(.invalidEvent, "stream id must not be empty")
        }
        try StoredName.require(stream, field: "stream id")
        var prepared: [PreparedEvent] = []
        prepared.reserveCapacity(events.count)
        for event in events {
            prepared.append(try PreparedEvent(event))
        }
        return prepared
    }
}
