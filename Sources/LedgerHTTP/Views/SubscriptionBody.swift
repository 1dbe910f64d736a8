import Foundation
import Hummingbird
import Ledger

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
