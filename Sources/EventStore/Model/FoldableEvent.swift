import Foundation

/// An event as a projector folds it: what `RecordedEvent` holds minus the stream, metadata, dedupe key
/// and hash, which no fold reads. A replay reads a million of them, and decoding those columns was a
/// fifth of its CPU.
public struct FoldableEvent: Sendable, Hashable {
    /// Where this event sits in the global log.
    public var cursor: EventCursor
    /// Globally unique id of the event.
    public var eventID: UUID
    /// The stream the event was appended to.
    public var streamID: String
    /// Event type name.
    public var type: String
    /// Version of the `data` schema for this `type`.
    public var schemaVersion: Int
    /// The event body: the JSON bytes as appended.
    public var data: Data
    /// When the store recorded the event.
    public var recordedAt: Date

    /// Global position of the event.
    public var position: Int64 { cursor.position }

    /// Creates a foldable event; adapters call this when reading rows back.
    public init(cursor: EventCursor, eventID: UUID, streamID: String, type: String, schemaVersion: Int, data: Data, recordedAt: Date) {
        self.cursor = cursor
        self.eventID = eventID
        self.streamID = streamID
        self.type = type
        self.schemaVersion = schemaVersion
        self.data = data
        self.recordedAt = recordedAt
    }

    /// The foldable part of a recorded event.
    public init(_ event: RecordedEvent) {
        self.init(
            cursor: event.cursor, eventID: event.eventID, streamID: event.streamID, type: event.type,
            schemaVersion: event.schemaVersion, data: event.data, recordedAt: event.recordedAt
        )
    }
}
