import Foundation

/// What an append did: each event's id and position, and whether it was new or a duplicate.
public struct AppendResult: Sendable, Hashable {
    /// One entry per event passed to `append`, in the same order.
    public var events: [AppendedEvent]
    /// The stream's version after the append.
    public var streamVersion: Int64

    /// Creates a result.
    public init(events: [AppendedEvent], streamVersion: Int64) {
        self.events = events
        self.streamVersion = streamVersion
    }

    /// True when every event was already stored, so nothing was written.
    public var isDuplicate: Bool { events.allSatisfy(\.isDuplicate) }
}
