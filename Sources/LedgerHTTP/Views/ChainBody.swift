import Hummingbird
import Ledger

/// One chain as `GET /v1/subscriptions/{id}` shows it: the fields of a subscription in the
/// entitlement view, plus who owns it now and its app, which the user's own view does not need.
struct ChainBody: ResponseEncodable, Sendable {
    var subscription: SubscriptionBody
    /// The user the chain is linked to now (null if no user has claimed it), whatever `at` asks.
    var userId: String?
    var bundleId: String?

    init(_ chain: ChainEvaluation, owner: String?) {
        subscription = SubscriptionBody(chain)
        userId = owner
        bundleId = chain.bundleId
    }

    private enum CodingKeys: String, CodingKey {
        case user_id, bundle_id
    }

    /// The subscription's keys and these two in one object, nulls written out as everywhere else.
    func encode(to encoder: any Encoder) throws {
        try subscription.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(Nullable(wrappedValue: userId), forKey: .user_id)
        try container.encode(Nullable(wrappedValue: bundleId), forKey: .bundle_id)
    }
}
