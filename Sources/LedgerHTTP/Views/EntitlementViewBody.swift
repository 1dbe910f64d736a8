import Foundation
import Hummingbird
import Ledger

/// The entitlement view as backend services read it; the field names are the API contract.
struct EntitlementViewBody: ResponseEncodable, Sendable {
    struct Entitlement: Encodable, Sendable {
        var id: String
        var active: Bool
        var status: String
        var product_id: String?
        var expires_at: String?
        var grace_period_expires_at: String?
        var will_renew: Bool
        var renews_to_product_id: String?
        var original_transaction_id: String?
        var environment: String?
        var ownership: String?
        var purchased_at: String?
        var revoked_at: String?
        var revocation_reason: Int?
        var source: String

        func encode(to encoder: any Encoder) throws {
            // Nulls are written out: clients read a stable set of keys.
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)
            try container.encode(active, forKey: .active)
            try container.encode(status, forKey: .status)
            try container.encode(product_id, forKey: .product_id)
            try container.encode(expires_at, forKey: .expires_at)
            try container.encode(grace_period_expires_at, forKey: .grace_period_expires_at)
            try container.encode(will_renew, forKey: .will_renew)
            try container.encode(renews_to_product_id, forKey: .renews_to_product_id)
            try container.encode(original_transaction_id, forKey: .original_transaction_id)
            try container.encode(environment, forKey: .environment)
            try container.encode(ownership, forKey: .ownership)
            try container.encode(purchased_at, forKey: .purchased_at)
            try container.encode(revoked_at, forKey: .revoked_at)
            try container.encode(revocation_reason, forKey: .revocation_reason)
            try container.encode(source, forKey: .source)
        }

        enum CodingKeys: String, CodingKey {
            case id, active, status, product_id, expires_at, grace_period_expires_at, will_renew
            case renews_to_product_id, original_transaction_id, environment, ownership, purchased_at
            case revoked_at, revocation_reason, source
        }
    }

    var user_id: String
    var evaluated_at: String
    var as_of: String?
    var entitlements: [Entitlement]
    var subscriptions: [SubscriptionBody]
    var position: Int64

    init(_ view: UserEntitlements) {
        user_id = view.userId
        evaluated_at = APIDate.string(view.evaluatedAt)
        as_of = view.asOf.map(APIDate.string)
        entitlements = view.entitlements.map { entitlement in
            Entitlement(
                id: entitlement.id, active: entitlement.active, status: entitlement.status,
                product_id: entitlement.productId, expires_at: entitlement.expiresAt.map(APIDate.string),
                grace_period_expires_at: entitlement.gracePeriodExpiresAt.map(APIDate.string),
                will_renew: entitlement.willRenew, renews_to_product_id: entitlement.renewsToProductId,
                original_transaction_id: entitlement.originalTransactionId, environment: entitlement.environment,
                ownership: entitlement.ownership, purchased_at: entitlement.purchasedAt.map(APIDate.string),
                revoked_at: entitlement.revokedAt.map(APIDate.string), revocation_reason: entitlement.revocationReason,
                source: entitlement.source.rawValue
            )
        }
        subscriptions = view.subscriptions.map(SubscriptionBody.init)
        position = view.position
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(user_id, forKey: .user_id)
        try container.encode(evaluated_at, forKey: .evaluated_at)
        try container.encode(as_of, forKey: .as_of)
        try container.encode(entitlements, forKey: .entitlements)
        try container.encode(subscriptions, forKey: .subscriptions)
        try container.encode(position, forKey: .position)
    }

    enum CodingKeys: String, CodingKey {
        case user_id, evaluated_at, as_of, entitlements, subscriptions, position
    }
}

/// A subscription chain as the API shows it.
struct SubscriptionBody: ResponseEncodable, Sendable {
    var original_transaction_id: String
    var product_id: String
    var status: String
    var active: Bool
    var expires_at: String?
    var grace_period_expires_at: String?
    var will_renew: Bool
    var renews_to_product_id: String?
    var environment: String
    var ownership: String
    var latest_transaction_id: String
    var purchased_at: String
    var revoked_at: String?
    var revocation_reason: Int?

    init(_ chain: ChainEvaluation) {
        original_transaction_id = chain.originalTransactionId
        product_id = chain.productId
        status = chain.status.rawValue
        active = chain.hasAccess
        expires_at = chain.expiresAt.map(APIDate.string)
        grace_period_expires_at = chain.gracePeriodExpiresAt.map(APIDate.string)
        will_renew = chain.willRenew
        renews_to_product_id = chain.renewsToProductId
        environment = chain.environment
        ownership = chain.ownership
        latest_transaction_id = chain.latestTransactionId
        purchased_at = APIDate.string(chain.purchasedAt)
        revoked_at = chain.revokedAt.map(APIDate.string)
        revocation_reason = chain.revocationReason
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(original_transaction_id, forKey: .original_transaction_id)
        try container.encode(product_id, forKey: .product_id)
        try container.encode(status, forKey: .status)
        try container.encode(active, forKey: .active)
        try container.encode(expires_at, forKey: .expires_at)
        try container.encode(grace_period_expires_at, forKey: .grace_period_expires_at)
        try container.encode(will_renew, forKey: .will_renew)
        try container.encode(renews_to_product_id, forKey: .renews_to_product_id)
        try container.encode(environment, forKey: .environment)
        try container.encode(ownership, forKey: .ownership)
        try container.encode(latest_transaction_id, forKey: .latest_transaction_id)
        try container.encode(purchased_at, forKey: .purchased_at)
        try container.encode(revoked_at, forKey: .revoked_at)
        try container.encode(revocation_reason, forKey: .revocation_reason)
    }

    enum CodingKeys: String, CodingKey {
        case original_transaction_id, product_id, status, active, expires_at, grace_period_expires_at, will_renew
        case renews_to_product_id, environment, ownership, latest_transaction_id, purchased_at, revoked_at, revocation_reason
    }
}
