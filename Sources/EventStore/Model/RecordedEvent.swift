import Foundation

/// An event as stored: immutable, positioned in its stream and in the global log, and chained by hash.
public struct RecordedEvent: Sendable, Hashable {
    /// Where this event sits in the global log; resume a catch-up reader from here.
    public var cursor: EventCursor
    /// Globally unique id of the event.
    public var eventID: UUID
    /// The stream the event belongs to, for example `subscription-2000000123`.
    public var streamID: String
    /// 1-based version of the event within its stream.
    public var streamVersion: Int64
    /// Event type name.
    public var type: String
    /// Version of the `data` schema for this `type`.
    public var schemaVersion: Int
    /// The event body: the JSON bytes as appended.
    public var data: Data
    /// The event metadata: the JSON bytes as appended.
    public var metadata: Data
    /// When the store recorded the event (microsecond precision).
    public var recordedAt: Date
    /// The idempotency key the event was appended with, if any.
    public var dedupeKey: String?
    /// SHA-256 over the previous event's hash in the stream and this event's canonical bytes.
    public var hash: Data

    /// Global position of the event (ascending in append order within one adapter).
    public var position: Int64 { cursor.position }

    /// Creates a recorded event; adapters call this when reading rows back.
    public init(
        cursor: EventCursor,
        eventID: UUID,
        streamID: String,
        streamVersion: Int64,
        type: String,
        schemaVersion: Int,
        data: Data,
        metadata: Data,
        recordedAt: Date,
        dedupeKey: String?,
        hash: Data
    ) {
        self.cursor = cursor
        self.eventID = eventID
        self.streamID = streamID
        self.streamVersion = streamVersion
        self.type = type
        self.schemaVersion = schemaVersion
        self.data = data
        self.metadata = metadata
        self.recordedAt = recordedAt
        self.dedupeKey = dedupeKey
        self.hash = hash
    }
}
