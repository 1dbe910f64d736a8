import EventStore
import Foundation

/// Evaluates a chain's status at a moment: a pure function of the fold state, the catalog and `at`,
/// never of the wall clock.
public struct ChainEvaluator: Sendable {
    public let catalog: ProductCatalog

    /// Creates an evaluator with the product catalog (for non-renewing durations).
    public init(catalog: ProductCatalog) {
        self.catalog = catalog
    }

    /// The chain's status at `at`, or nil if nothing of it was bought by then (or only renewal info
    /// arrived).
    ///
    /// What is known now, evaluated at `at`: a transaction bought after `at` is left out, and a refund
    /// or revocation counts from its date, so a later refund does not take back access the user had
    /// at `at`. Renewal info (auto-renew, grace period, billing retry) is the latest Apple signed by
    /// `at`. "After `at`" allows a minute for the clocks' difference (`clockSkewAllowance`).
    public func evaluate(_ state: ChainState, at date: Date) -> ChainEvaluation? {
        let at = Timestamp.milliseconds(date)
        // Apple's clock is not ours: what Apple dated up to a minute after `at` counts as by `at`, so
        // a purchase read back at once is never left out for being a few milliseconds "early".
        let known = Self.knownBy(at)
        guard let governing = state.governingTransaction(at: known) else { return nil }
        let renewal = state.renewal(at: known)?.value
        let expiry = expiry(of: governing)
        let grace = renewal?.gracePeriodExpiresDate
        let revoked = Self.revokedTransaction(governing, of: state, known: known)
        let revocation = revoked.revocationDate.flatMap { $0 <= known ? $0 : nil }
        // Apple revokes an upgraded period at the upgrade; until the new transaction is known the old
        // one governs, and it ended then: not a refund.
        let upgradedAway = governing.isUpgraded && revocation != nil
        let status: ChainStatus
        if upgradedAway {
            status = .expired
        } else if revocation != nil {
            status = Self.isRevokedFromFamilySharing(revoked) ? .revoked : .refunded
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
            expiresAt: (upgradedAway ? revocation.map { min($0, expiry ?? $0) } : expiry).map(Self.date),
            gracePeriodExpiresAt: status == .gracePeriod ? grace.map(Self.date) : nil,
            willRenew: isSubscription && renewal?.autoRenewStatus == true && !(status == .refunded || status == .revoked),
            // Without renewal info nothing is known of the next period (and `willRenew` is false).
            renewsToProductId: isSubscription ? renewal.map { $0.autoRenewProductId ?? governing.productId } : nil,
            environment: governing.environment,
            ownership: governing.ownership == "FAMILY_SHARED" ? "family_shared" : "purchased",
            purchasedAt: Self.date(governing.purchaseDate),
            revokedAt: upgradedAway ? nil : revocation.map(Self.date),
            revocationReason: revocation == nil || upgradedAway ? nil : revoked.revocationReason,
            // A chain is one app's, but not every source names it (a receipt Apple answered without one).
            bundleId: governing.bundleId ?? state.transactions.values.compactMap(\.value.bundleId).min()
        )
    }

    /// The transaction whose revocation decides the chain's: the governing one, except in a
    /// non-consumable chain. There a restore (StoreKit 1's `restoreCompletedTransactions`) is a new
    /// transaction of the same purchase, with a later purchase date, so it governs; Apple refunds
    /// the purchase, not the restore, and a receipt then leaves the purchase out. So the earliest
    /// revocation known by `known` of any transaction of the chain counts.
    static func revokedTransaction(_ governing: TransactionObservation, of state: ChainState, known: Int64) -> TransactionObservation {
        guard governing.type == ProductType.nonConsumable, governing.revocationDate.map({ $0 > known }) ?? true else { return governing }
        let revoked = state.transactions(boughtBy: known).filter { transaction in
            transaction.type == ProductType.nonConsumable && transaction.revocationDate.map { $0 <= known } == true
        }
        return revoked.min { ($0.revocationDate ?? .max, $0.transactionId) < ($1.revocationDate ?? .max, $1.transactionId) } ?? governing
    }

    /// How far (milliseconds) Apple's dates may run ahead of `at` and still count as known by then.
    static let clockSkewAllowance: Int64 = 60_000

    /// The latest of Apple's dates that counts as by `at` (Unix milliseconds).
    static func knownBy(_ at: Int64) -> Int64 {
        at + clockSkewAllowance
    }

    /// A revocation is Family Sharing's when Apple says so (`revocationType`, from App Store Server
    /// Notifications 2.20) or, without that field, when the transaction was shared: a family member's
    /// copy is never refunded to them, only revoked (Apple's REVOKE notification).
    static func isRevokedFromFamilySharing(_ transaction: TransactionObservation) -> Bool {
        transaction.revocationType.map { $0 == "FAMILY_REVOKE" } ?? (transaction.ownership == "FAMILY_SHARED")
    }

    /// When the transaction's access ends: Apple's expiry for subscriptions, purchase plus the configured
    /// duration for non-renewing ones, nil (never) for non-consumables.
    func expiry(of transaction: TransactionObservation) -> Int64? {
        switch transaction.type {
        case ProductType.nonRenewing:
            if let expires = transaction.expiresDate { return expires }
            // Saturating: a catalogue built in code with a huge duration (the configuration caps it
            // at 100 years) must read as "far future", not trap the evaluating request. The purchase
            // itself is at most a minute after `at`, since only transactions bought by then govern.
            let days = Int64(clamping: catalog.product(transaction.productId)?.durationDays ?? 0)
            let (span, spanOverflow) = days.multipliedReportingOverflow(by: 86_400_000)
            let (end, endOverflow) = transaction.purchaseDate.addingReportingOverflow(span)
            guard !spanOverflow, !endOverflow else { return days < 0 ? .min : .max }
            return end
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
