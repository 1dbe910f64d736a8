/// One stream's part of a multi-stream append inside a transaction (`ProjectionTransaction.append(_:)`).
public struct StreamAppend: Sendable {
    /// The stream to append to.
    public var stream: String
    /// Its events, in order.
    public var events: [NewEvent]

    /// Creates one stream's part.
    public init(stream: String, events: [NewEvent]) {
        self.stream = stream
        self.events = events
    }
}
