import Foundation
import Hummingbird
import Ledger

/// The entitlement view as backend services read it; the field names are the API contract.
struct EntitlementViewBody: ResponseEncodable, Sendable {
    struct Entitlement: Encodable, Sendable {
        var id: String
        var active: Bool
        var status: String
        @Nullable var product_id: String?
        @Nullable var expires_at: String?
        @Nullable var grace_period_expires_at: String?
        var will_renew: Bool
        @Nullable var renews_to_product_id: String?
        @Nullable var original_transaction_id: String?
        @Nullable var environment: String?
        @Nullable var ownership: String?
        @Nullable var purchased_at: String?
        @Nullable var revoked_at: String?
        @Nullable var revocation_reason: Int?
        var source: String

    }

    var user_id: String
    var evaluated_at: String
    @Nullable var as_of: String?
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

}

/// A subscription chain as the API shows it.
struct SubscriptionBody: ResponseEncodable, Sendable {
    var original_transaction_id: String
    var product_id: String
    var status: String
    var active: Bool
    @Nullable var expires_at: String?
    @Nullable var grace_period_expires_at: String?
    var will_renew: Bool
    @Nullable var renews_to_product_id: String?
    var environment: String
    var ownership: String
    var latest_transaction_id: String
    var purchased_at: String
    @Nullable var revoked_at: String?
    @Nullable var revocation_reason: Int?

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

}
