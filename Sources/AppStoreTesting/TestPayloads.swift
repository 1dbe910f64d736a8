import AppStore

extension JWSTransactionDecodedPayload {
    /// An auto-renewable subscription transaction with plausible defaults for everything not given.
    /// - Why: ledger lifecycle tests state only what matters (`transactionId`, dates, revocation) and sign it
    ///   with `pki.signTransaction(.testSubscription(...))`.
    public static func testSubscription(
        transactionId: String,
        originalTransactionId: String? = nil,
        bundleId: String = "com.example.app",
        productId: String = "com.example.pro.monthly",
        purchaseDate: AppStoreDate,
        expiresDate: AppStoreDate? = nil,
        environment: AppStoreEnvironment = .sandbox,
        transactionReason: TransactionReason = .purchase,
        appAccountToken: String? = nil,
        price: Int64 = 9990,
        currency: String = "USD",
        offerType: OfferType? = nil,
        revocationDate: AppStoreDate? = nil,
        revocationReason: RevocationReason? = nil,
        isUpgraded: Bool? = nil,
        signedDate: AppStoreDate? = nil
    ) -> JWSTransactionDecodedPayload {
        JWSTransactionDecodedPayload(
            originalTransactionId: originalTransactionId ?? transactionId,
            transactionId: transactionId,
            webOrderLineItemId: "wo-\(transactionId)",
            bundleId: bundleId,
            productId: productId,
            subscriptionGroupIdentifier: "group-1",
            purchaseDate: purchaseDate,
            originalPurchaseDate: purchaseDate,
            // 30 days by default.
            expiresDate: expiresDate ?? AppStoreDate(millisecondsSince1970: purchaseDate.millisecondsSince1970 + 2_592_000_000),
            quantity: 1,
            type: .autoRenewableSubscription,
            appAccountToken: appAccountToken,
            inAppOwnershipType: .purchased,
            signedDate: signedDate ?? purchaseDate,
            revocationReason: revocationReason,
            revocationDate: revocationDate,
            isUpgraded: isUpgraded,
            offerType: offerType,
            environment: environment,
            storefront: "USA",
            storefrontId: "143441",
            transactionReason: transactionReason,
            currency: currency,
            price: price
        )
    }
}

extension JWSRenewalInfoDecodedPayload {
    /// A renewal info with plausible defaults.
    /// - Why: pairs with ``JWSTransactionDecodedPayload/testSubscription(transactionId:originalTransactionId:bundleId:productId:purchaseDate:expiresDate:environment:transactionReason:appAccountToken:price:currency:offerType:revocationDate:revocationReason:isUpgraded:signedDate:)``
    ///   in notifications minted by `TestPKI.signNotification(type:...)`.
    public static func testRenewal(
        originalTransactionId: String,
        productId: String = "com.example.pro.monthly",
        autoRenewStatus: AutoRenewStatus = .on,
        autoRenewProductId: String? = nil,
        renewalDate: AppStoreDate? = nil,
        expirationIntent: ExpirationIntent? = nil,
        isInBillingRetryPeriod: Bool? = nil,
        gracePeriodExpiresDate: AppStoreDate? = nil,
        environment: AppStoreEnvironment = .sandbox,
        signedDate: AppStoreDate? = nil
    ) -> JWSRenewalInfoDecodedPayload {
        JWSRenewalInfoDecodedPayload(
            expirationIntent: expirationIntent,
            originalTransactionId: originalTransactionId,
            autoRenewProductId: autoRenewProductId ?? productId,
            productId: productId,
            autoRenewStatus: autoRenewStatus,
            isInBillingRetryPeriod: isInBillingRetryPeriod,
            gracePeriodExpiresDate: gracePeriodExpiresDate,
            signedDate: signedDate,
            environment: environment,
            renewalDate: renewalDate
        )
    }
}
