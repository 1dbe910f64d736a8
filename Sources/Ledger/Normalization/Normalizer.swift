import AppStore
import Foundation

/// Reduces every Apple input to transaction and renewal observations, the fold's one vocabulary.
///
/// Inputs lacking the ids the fold needs (no transaction id, no original transaction id, no product)
/// yield no observation rather than a guess.
public enum Normalizer {
    /// A StoreKit 2 transaction, asserted at its own `signedDate` (or `fallback` if it has none).
    public static func observation(_ payload: JWSTransactionDecodedPayload, fallback assertedAt: Int64) -> TransactionObservation? {
        guard let transactionId = payload.transactionId,
              let productId = payload.productId,
              let purchase = payload.purchaseDate?.millisecondsSince1970 else { return nil }
        return TransactionObservation(
            transactionId: transactionId,
            originalTransactionId: payload.originalTransactionId ?? transactionId,
            productId: productId,
            bundleId: payload.bundleId,
            type: payload.type?.rawValue ?? ProductType.autoRenewable,
            purchaseDate: purchase,
            expiresDate: payload.expiresDate?.millisecondsSince1970,
            revocationDate: payload.revocationDate?.millisecondsSince1970,
            revocationReason: payload.revocationReason?.rawValue,
            revocationType: payload.revocationType?.rawValue,
            isUpgraded: payload.isUpgraded ?? false,
            ownership: payload.inAppOwnershipType?.rawValue ?? "PURCHASED",
            environment: payload.environment?.rawValue ?? "Production",
            appAccountToken: payload.appAccountToken?.lowercased(),
            offerType: payload.offerType?.rawValue,
            assertedAt: payload.signedDate?.millisecondsSince1970 ?? assertedAt
        )
    }

    /// A StoreKit 2 renewal info, asserted at its own `signedDate` (or `fallback`).
    public static func observation(_ payload: JWSRenewalInfoDecodedPayload, fallback assertedAt: Int64) -> RenewalObservation? {
        guard let original = payload.originalTransactionId else { return nil }
        return RenewalObservation(
            originalTransactionId: original,
            autoRenewStatus: payload.autoRenewStatus.map { $0 == .on },
            autoRenewProductId: payload.autoRenewProductId,
            productId: payload.productId,
            isInBillingRetryPeriod: payload.isInBillingRetryPeriod,
            gracePeriodExpiresDate: payload.gracePeriodExpiresDate?.millisecondsSince1970,
            expirationIntent: payload.expirationIntent?.rawValue,
            priceIncreaseStatus: payload.priceIncreaseStatus?.rawValue,
            environment: payload.environment?.rawValue,
            assertedAt: payload.signedDate?.millisecondsSince1970 ?? assertedAt
        )
    }

    /// A legacy receipt entry (verifyReceipt or a V1 notification's unified receipt).
    ///
    /// `cancellation_date_ms` maps to a revocation (family sharing's reason is not given by the legacy
    /// API, so a cancelled family-shared entry counts as revoked, any other as refunded).
    public static func observation(
        _ entry: LegacyInAppTransaction,
        bundleId: String?,
        environment: String,
        assertedAt: Int64,
        catalog: ProductCatalog
    ) -> TransactionObservation? {
        guard let transactionId = entry.transactionId,
              let productId = entry.productId,
              let purchase = entry.purchaseDate?.millisecondsSince1970 else { return nil }
        let ownership = entry.inAppOwnershipType?.rawValue ?? "PURCHASED"
        let cancelled = entry.cancellationDate?.millisecondsSince1970
        return TransactionObservation(
            transactionId: transactionId,
            originalTransactionId: entry.originalTransactionId ?? transactionId,
            productId: productId,
            bundleId: bundleId,
            type: legacyType(entry, catalog: catalog),
            purchaseDate: purchase,
            expiresDate: entry.expiresDate?.millisecondsSince1970,
            revocationDate: cancelled,
            revocationReason: cancelled == nil ? nil : entry.cancellationReason.flatMap { Int($0) },
            revocationType: cancelled == nil ? nil : (ownership == "FAMILY_SHARED" ? "FAMILY_REVOKE" : "REFUND_FULL"),
            isUpgraded: entry.isUpgraded?.boolValue ?? false,
            ownership: ownership,
            environment: environment,
            appAccountToken: entry.appAccountToken?.lowercased(),
            offerType: nil,
            assertedAt: assertedAt
        )
    }

    /// A legacy pending renewal entry ("1"/"0" flags, string dates).
    public static func observation(_ entry: LegacyPendingRenewalInfo, environment: String, assertedAt: Int64) -> RenewalObservation? {
        guard let original = entry.originalTransactionId else { return nil }
        return RenewalObservation(
            originalTransactionId: original,
            autoRenewStatus: entry.autoRenewStatus?.boolValue,
            autoRenewProductId: entry.autoRenewProductId,
            productId: entry.productId,
            isInBillingRetryPeriod: entry.isInBillingRetryPeriod?.boolValue,
            gracePeriodExpiresDate: entry.gracePeriodExpiresDate?.millisecondsSince1970,
            expirationIntent: entry.expirationIntent.flatMap { Int($0) },
            priceIncreaseStatus: entry.priceIncreaseStatus.flatMap { Int($0) },
            environment: environment,
            assertedAt: assertedAt
        )
    }

    /// When Apple last changed a legacy entry, as far as the entry itself says: the later of its
    /// purchase and its cancellation, never after `received`. A V1 notification carries no signed
    /// date, so its transactions are asserted at this lower bound rather than when it arrived: a late
    /// retry then never wins over what Apple signed after it (a refund, its reversal).
    public static func statedAt(_ entry: LegacyInAppTransaction, received: Int64) -> Int64 {
        let purchase = entry.purchaseDate?.millisecondsSince1970 ?? received
        let cancelled = entry.cancellationDate?.millisecondsSince1970 ?? purchase
        return min(max(purchase, cancelled), received)
    }

    /// Renewal observations for the subscriptions of `transactions` that the `entries` Apple listed lack: renewal
    /// off, no billing retry, no grace period. Apple lists every auto-renewable subscription of a
    /// receipt in `pending_renewal_info`, and removes one whose renewal the customer cancelled during
    /// a grace period, so a missing entry is a fact about that subscription, not an omission.
    public static func missingRenewals(
        for transactions: [TransactionObservation], listed entries: [LegacyPendingRenewalInfo], environment: String, assertedAt: Int64
    ) -> [RenewalObservation] {
        // An entry without an original id is about some subscription we cannot tell: then none is
        // read as dropped.
        guard entries.allSatisfy({ $0.originalTransactionId != nil }) else { return [] }
        let listed = Set(entries.compactMap(\.originalTransactionId))
        let chains = Set(transactions.filter { $0.type == ProductType.autoRenewable }.map(\.originalTransactionId))
        return chains.subtracting(listed).sorted().map {
            RenewalObservation(
                originalTransactionId: $0, autoRenewStatus: false, isInBillingRetryPeriod: false,
                environment: environment, assertedAt: assertedAt
            )
        }
    }

    /// The legacy API has no product type: an entry with an expiry is a subscription; otherwise the
    /// catalog's duration marks a non-renewing subscription, and anything else counts as non-consumable.
    static func legacyType(_ entry: LegacyInAppTransaction, catalog: ProductCatalog) -> String {
        if entry.expiresDate != nil { return ProductType.autoRenewable }
        if let productId = entry.productId, catalog.product(productId)?.durationDays != nil { return ProductType.nonRenewing }
        return ProductType.nonConsumable
    }

    /// `Sandbox`/`Production` from the legacy `Sandbox`/`PROD`/`Production` spellings (in any case);
    /// any other value as stated, for the app's accepted environments to refuse; nil if none is stated.
    public static func environment(_ legacy: LegacyEnvironment?) -> String? {
        guard let raw = legacy?.rawValue else { return nil }
        switch raw.lowercased() {
        case "sandbox": return "Sandbox"
        case "prod", "production": return "Production"
        default: return raw
        }
    }
}
