import EventStore
import Hummingbird

/// `GET /v1/rejections`: the webhook bodies the server refused, newest first, so an operator or an
/// auditor sees what was refused and why without database access.
struct RejectionListBody: ResponseEncodable, Sendable {
    /// One refused body as kept.
    struct Entry: Encodable, Sendable {
        var received_at: String
        var source: String
        var code: String
        var detail: String
        var body: String
        /// The request id the refusal was answered with, to find its log lines; null for one
        /// kept before the store recorded it.
        @Nullable var request_id: String?
    }

    var rejections: [Entry]
}

extension RejectionListBody {
    init(_ rejections: [Rejection]) {
        self.init(rejections: rejections.map {
            Entry(received_at: APIDate.string($0.receivedAt), source: $0.source, code: $0.code, detail: $0.detail, body: $0.body, request_id: $0.requestID)
        })
    }
}
