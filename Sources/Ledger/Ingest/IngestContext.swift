/// Where an input came from, recorded in the event's metadata.
public struct IngestContext: Sendable, Hashable {
    /// The endpoint that received it, e.g. `POST /v1/apple/notifications/v2`.
    public var source: String
    /// The request id, to find the request's log lines.
    public var requestID: String?
    /// The name of the API key the request was made with (`auth.keys[].name`); nil for Apple's
    /// webhooks, whose proof is their signature or shared secret.
    public var apiKey: String?

    /// Creates a context.
    public init(source: String, requestID: String? = nil, apiKey: String? = nil) {
        self.source = source
        self.requestID = requestID
        self.apiKey = apiKey
    }
}

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
