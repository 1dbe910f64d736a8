/// A page of the global log and the cursor to resume after it.
public struct EventPage: Sendable, Hashable {
    /// The events, in log order.
    public var events: [RecordedEvent]
    /// The cursor of the last event in the page, or the requested cursor when the page is empty.
    public var next: EventCursor

    /// Creates a page.
    public init(events: [RecordedEvent], next: EventCursor) {
        self.events = events
        self.next = next
    }
}
