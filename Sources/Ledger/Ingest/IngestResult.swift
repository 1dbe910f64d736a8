/// What an ingestion did.
public struct IngestResult: Sendable, Hashable {
    /// `recorded` for a new event, `duplicate` when Apple retried or a client resent.
    public var isDuplicate: Bool
    public var eventID: String
    public var position: Int64
    /// Chains the caller claimed that the `keep` policy refused: the refusal is recorded with the
    /// fact, and a client submission answers `link_conflict`.
    public var refusedChains: [String] = []
    /// Where the event is (new, or the one a duplicate matched), for a look at what it holds.
    var streamID: String?
    var streamVersion: Int64?
}
