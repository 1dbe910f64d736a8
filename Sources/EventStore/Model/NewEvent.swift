import Foundation

/// An event about to be appended: what happened, as the caller decoded it, not yet positioned.
///
/// `data` and `metadata` are the bytes of JSON objects. The store keeps them byte for byte, and the
/// hash chain covers exactly those bytes.
public struct NewEvent: Sendable, Hashable {
    /// Globally unique id of this event; callers may set it to make retries recognisable.
    public var eventID: UUID
    /// Event type name, for example `apple.notification.v2`.
    public var type: String
    /// Version of the `data` schema for this `type`, so old events stay readable after changes.
    public var schemaVersion: Int
    /// The event body: the bytes of a JSON object.
    public var data: Data
    /// Context about the event (received time, request id, verification facts): the bytes of a JSON object.
    public var metadata: Data
    /// When set, a second append with the same key is a no-op that returns the first event.
    public var dedupeKey: String?

    /// Creates an event from raw JSON object bytes.
    public init(
        eventID: UUID = .random(),
        type: String,
        schemaVersion: Int = 1,
        data: Data,
        metadata: Data = Data("{}".utf8),
        dedupeKey: String? = nil
    ) {
        self.eventID = eventID
        self.type = type
        self.schemaVersion = schemaVersion
        self.data = data
        self.metadata = metadata
        self.dedupeKey = dedupeKey
    }
}
