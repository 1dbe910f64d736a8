import Foundation

/// Evaluates a chain's status at a moment: a pure function of the fold state, the catalog and `at`,
/// never of the wall clock.
public struct ChainEvaluator: Sendable {
    public let catalog: ProductCatalog

    /// Creates an evaluator with the product catalog (for non-renewing durations).
    public init(catalog: ProductCatalog) {
        self.catalog = catalog
    }

    /// The chain's status at `at`, or nil if it has no transaction yet (only renewal info arrived).
    public func evaluate(_ state: ChainState, at date: Date) -> ChainEvaluation? {
        guard let governing = state.governingTransaction else { return nil }
        let at = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        let renewal = state.renewal?.value
        let expiry = expiry(of: governing)
        let grace = renewal?.gracePeriodExpiresDate
        let status: ChainStatus
        if governing.revocationDate != nil {
            status = governing.revocationType == "FAMILY_REVOKE" ? .revoked : .refunded
        } else if governing.type == ProductType.consumable {
            status = .expired
        } else if let expiry, expiry <= at {
            if let grace, at < grace {
                status = .gracePeriod
            } else if renewal?.isInBillingRetryPeriod == true {
                status = .billingRetry
            } else {
                status = .expired
            }
        } else {
            status = .active
        }
        let isSubscription = governing.type == ProductType.autoRenewable
        return ChainEvaluation(
            originalTransactionId: state.originalTransactionId,
            status: status,
            productId: governing.productId,
            latestTransactionId: governing.transactionId,
            productType: governing.type,
            expiresAt: expiry.map(Self.date),
            gracePeriodExpiresAt: status == .gracePeriod ? grace.map(Self.date) : nil,
            willRenew: isSubscription && renewal?.autoRenewStatus == true && !(status == .refunded || status == .revoked),
            renewsToProductId: isSubscription ? (renewal?.autoRenewProductId ?? governing.productId) : nil,
            environment: governing.environment,
            ownership: governing.ownership == "FAMILY_SHARED" ? "family_shared" : "purchased",
            purchasedAt: Self.date(governing.purchaseDate),
            revokedAt: governing.revocationDate.map(Self.date),
            revocationReason: governing.revocationReason
        )
    }

    /// When the transaction's access ends: Apple's expiry for subscriptions, purchase plus the configured
    /// duration for non-renewing ones, nil (never) for non-consumables.
    func expiry(of transaction: TransactionObservation) -> Int64? {
        switch transaction.type {
        case ProductType.nonRenewing:
            if let expires = transaction.expiresDate { return expires }
            let days = catalog.product(transaction.productId)?.durationDays ?? 0
            return transaction.purchaseDate + Int64(days) * 86_400_000
        case ProductType.nonConsumable:
            return nil
        case ProductType.consumable:
            return transaction.purchaseDate
        default:
            return transaction.expiresDate ?? transaction.purchaseDate
        }
    }

    static func date(_ milliseconds: Int64) -> Date {
        Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }
}

/// Apple's product type names, as they appear in transactions.
public enum ProductType {
    public static let autoRenewable = "Auto-Renewable Subscription"
    public static let nonRenewing = "Non-Renewing Subscription"
    public static let nonConsumable = "Non-Consumable"
    public static let consumable = "Consumable"
}
