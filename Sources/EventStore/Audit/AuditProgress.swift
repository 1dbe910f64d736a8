/// How far an audit has got, reported as it walks.
public struct AuditProgress: Sendable, Hashable {
    /// Events checked so far.
    public var events: Int
    /// Streams checked so far.
    public var streams: Int
    /// Events in the store when the audit began.
    public var totalEvents: Int
}
