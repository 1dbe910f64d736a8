/// The event types the ledger records, and the streams they go to.
public enum LedgerEventType {
    /// A verified App Store Server Notification V2; dedupe key `notificationUUID`.
    public static let notificationV2 = "apple.notification.v2"
    /// An App Store Server Notification V1 whose password matched; dedupe key: hash of the raw body.
    public static let notificationV1 = "apple.notification.v1"
    /// A signed transaction a client submitted; dedupe key: transaction id + signed date.
    public static let transaction = "apple.transaction"
    /// A verifyReceipt response for a user; dedupe key: hash of the receipt info it carries, the
    /// receipt event it follows and its subscriptions' stream versions (see `receiptDedupeKey`).
    public static let receiptValidated = "apple.receipt.validated"
    /// A user claimed a subscription chain (or the claim was refused under the `keep` policy).
    public static let userLinked = "user.linked"
    /// A chain was transferred away from this user by another user's claim.
    public static let userUnlinked = "user.unlinked"
    /// An operator granted an entitlement until a date.
    public static let entitlementGranted = "entitlement.granted"
    /// An operator revoked a manual grant.
    public static let entitlementRevoked = "entitlement.revoked"

    /// The stream of a subscription chain.
    public static func chainStream(_ originalTransactionId: String) -> String { "subscription-\(originalTransactionId)" }
    /// The stream of a user's links, receipts and grants.
    public static func userStream(_ userId: String) -> String { "user-\(userId)" }
    /// The stream of app-level notifications that name no transaction (TEST, SUMMARY).
    public static func appStream(_ bundleId: String) -> String { "app-\(bundleId)" }
}
