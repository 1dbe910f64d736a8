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
