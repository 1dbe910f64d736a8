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
    /// The version the stream's head row states, for `headMismatch` and `eventsMissing`.
    public var headVersion: Int64?

    /// Creates a break.
    public init(streamID: String, streamVersion: Int64, position: Int64, reason: Reason, headVersion: Int64? = nil) {
        self.streamID = streamID
        self.streamVersion = streamVersion
        self.position = position
        self.reason = reason
        self.headVersion = headVersion
    }

    /// The kinds of break the audit detects.
    public enum Reason: String, Sendable, Hashable {
        /// The stored hash is not the hash of the stored fields: the row was edited.
        case hashMismatch = "hash_mismatch"
        /// Versions skip or repeat: a row was removed or inserted out of band.
        case versionGap = "version_gap"
        /// The stream's head (version or hash) does not match its last event.
        case headMismatch = "head_mismatch"
        /// Events are stored on a stream that has no head row: the row was removed, or the events
        /// moved to another stream id.
        case headMissing = "head_missing"
        /// A stream's head counts events of which none is stored: they were removed or moved.
        case eventsMissing = "events_missing"
        /// A row's columns cannot be read as an event (an id that is not a UUID, a value of the
        /// wrong type): it was written behind the schema's back.
        case unreadableRow = "unreadable_row"
        /// The event at a checkpoint's version has another hash than the checkpoint recorded: the
        /// stream's history up to there was changed, its hashes computed again.
        case checkpointMismatch = "checkpoint_mismatch"
        /// The stream ends before the version a checkpoint recorded, or is gone: events were removed.
        case checkpointMissing = "checkpoint_missing"
    }

    public var description: String {
        switch reason {
        case .headMismatch where headVersion == streamVersion:
            "stream \(streamID): head_mismatch (its events end at version \(streamVersion), as its head says, but the head holds another hash than its last event's)"
        case .headMismatch:
            "stream \(streamID): head_mismatch (its events end at version \(streamVersion), its head says version \(headVersion ?? 0))"
        case .eventsMissing:
            "stream \(streamID): events_missing (its head says version \(headVersion ?? 0), no event is stored)"
        case .checkpointMismatch:
            "stream \(streamID) version \(streamVersion) (position \(position)): checkpoint_mismatch (its hash is not the one the checkpoint recorded: history up to there was changed)"
        case .checkpointMissing where streamVersion == 0:
            "stream \(streamID): checkpoint_missing (the checkpoint recorded version \(headVersion ?? 0); the stream is gone)"
        case .checkpointMissing:
            "stream \(streamID): checkpoint_missing (the checkpoint recorded version \(headVersion ?? 0); the stream now ends at version \(streamVersion))"
        case .hashMismatch:
            "stream \(streamID) version \(streamVersion) (position \(position)): hash_mismatch (its stored hash is not the hash of its stored fields: the row was changed after it was written)"
        case .versionGap:
            "stream \(streamID) version \(streamVersion) (position \(position)): version_gap (the stream's versions skip or repeat here: a row was removed or inserted out of band)"
        case .headMissing:
            "stream \(streamID) version \(streamVersion) (position \(position)): head_missing (events are stored on a stream with no head row: the head was removed, or the events moved to another stream id)"
        case .unreadableRow:
            "stream \(streamID) version \(streamVersion) (position \(position)): unreadable_row (its columns cannot be read as an event: it was written behind the schema's back)"
        }
    }
}
