import Foundation

/// The outcome for one appended event.
public struct AppendedEvent: Sendable, Hashable {
    /// The stored event's id: the existing event's id for a duplicate.
    public var eventID: UUID
    /// The stored event's global position.
    public var position: Int64
    /// The stream the stored event is in (a duplicate may live in another stream).
    public var streamID: String
    /// The stored event's version in its stream.
    public var streamVersion: Int64
    /// True when an event with the same dedupe key already existed and nothing was written for this one.
    public var isDuplicate: Bool
    /// When the store recorded the event, exactly as it reads back, for events this append wrote;
    /// nil for one stored earlier. Inline projections use it so a replay folds the same time.
    public var recordedAt: Date?

    /// Creates an outcome.
    public init(eventID: UUID, position: Int64, streamID: String, streamVersion: Int64, isDuplicate: Bool, recordedAt: Date? = nil) {
        self.eventID = eventID
        self.position = position
        self.streamID = streamID
        self.streamVersion = streamVersion
        self.isDuplicate = isDuplicate
        self.recordedAt = recordedAt
    }
}
