/// The result of walking every stream's hash chain.
public struct AuditReport: Sendable, Hashable {
    /// How many streams were checked.
    public var streams: Int
    /// How many events were checked.
    public var events: Int
    /// The first broken link of each damaged stream, in stream order.
    public var breaks: [ChainBreak]

    /// Creates a report.
    public init(streams: Int, events: Int, breaks: [ChainBreak]) {
        self.streams = streams
        self.events = events
        self.breaks = breaks
    }

    /// True when every chain is intact.
    public var isIntact: Bool { breaks.isEmpty }
}

/// Where and how a stream's chain breaks.
public struct ChainBreak: Sendable, Hashable, CustomStringConvertible {
    /// The damaged stream.
    public var streamID: String
    /// The version of the first event whose stored facts do not match the chain.
    public var streamVersion: Int64
    /// The event's global position.
    public var position: Int64
    /// Why the link is broken.
    public var reason: Reason

    /// Creates a break.
    public init(streamID: String, streamVersion: Int64, position: Int64, reason: Reason) {
        self.streamID = streamID
        self.streamVersion = streamVersion
        self.position = position
        self.reason = reason
    }

    /// The kinds of break the audit detects.
    public enum Reason: String, Sendable, Hashable {
        /// The stored hash is not the hash of the stored fields: the row was edited.
        case hashMismatch = "hash_mismatch"
        /// Versions skip or repeat: a row was removed or inserted out of band.
        case versionGap = "version_gap"
        /// The stream's head (version or hash) does not match its last event.
        case headMismatch = "head_mismatch"
    }

    public var description: String {
        "stream \(streamID) version \(streamVersion) (position \(position)): \(reason.rawValue)"
    }
}

/// How far an audit has got, reported as it walks.
public struct AuditProgress: Sendable, Hashable {
    /// Events checked so far.
    public var events: Int
    /// Streams checked so far.
    public var streams: Int
    /// Events in the store when the audit began.
    public var totalEvents: Int
}
