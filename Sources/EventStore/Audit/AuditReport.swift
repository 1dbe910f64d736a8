/// The result of walking every stream's hash chain.
public struct AuditReport: Sendable, Hashable {
    /// How many streams were checked.
    public var streams: Int
    /// How many events were checked.
    public var events: Int
    /// The first broken link of each damaged stream, in stream order.
    public var breaks: [ChainBreak]
    /// Every intact stream's version and head hash, to keep for a later audit to check against.
    public var checkpoint: AuditCheckpoint

    /// Creates a report.
    public init(streams: Int, events: Int, breaks: [ChainBreak], checkpoint: AuditCheckpoint = AuditCheckpoint()) {
        self.streams = streams
        self.events = events
        self.breaks = breaks
        self.checkpoint = checkpoint
    }

    /// True when every chain is intact.
    public var isIntact: Bool { breaks.isEmpty }
}
