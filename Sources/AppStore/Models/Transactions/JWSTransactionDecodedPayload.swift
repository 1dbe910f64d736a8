/// The decoded payload of a signed transaction (`signedTransactionInfo`, `JWSTransaction`).
///
/// The authoritative record of one purchase or renewal period; the ledger derives entitlements from it. Unknown JSON fields are ignored.
public struct JWSTransactionDecodedPayload: Codable, Hashable, Sendable {
    /// The id of the original purchase; stable across renewals, the subscription's identity.
    public var originalTransactionId: String?
    /// The unique id of this transaction (one per purchase, renewal or restore).
    public var transactionId: String?
    /// The id of the subscription purchase event across devices.
    public var webOrderLineItemId: String?
    /// The app's bundle identifier.
    public var bundleId: String?
    /// The in-app purchase product identifier.
    public var productId: String?
    /// The subscription group the product belongs to.
    public var subscriptionGroupIdentifier: String?
    /// When the App Store charged the customer (or the renewal date).
    public var purchaseDate: AppStoreDate?
    /// When the original transaction was purchased.
    public var originalPurchaseDate: AppStoreDate?
    /// When the subscription period expires or renews.
    public var expiresDate: AppStoreDate?
    /// The number of consumable items purchased.
    public var quantity: Int?
    /// The product type.
    public var type: TransactionType?
    /// The UUID the app attached to the purchase to link it to its own account (kept as text: Apple has sent empty strings).
    public var appAccountToken: String?
    /// Purchased directly or available through Family Sharing.
    public var inAppOwnershipType: InAppOwnershipType?
    /// When the App Store signed this JWS; the effective time of its verification.
    public var signedDate: AppStoreDate?
    /// Why the transaction was refunded or revoked.
    public var revocationReason: RevocationReason?
    /// When the transaction was refunded or revoked; absent if it was not.
    public var revocationDate: AppStoreDate?
    /// Whether the customer upgraded to another subscription (this one is superseded).
    public var isUpgraded: Bool?
    /// The kind of offer applied.
    public var offerType: OfferType?
    /// The offer code or promotional offer id.
    public var offerIdentifier: String?
    /// The environment that produced the transaction.
    public var environment: AppStoreEnvironment?
    /// The ISO 3166-1 alpha-3 country code of the storefront.
    public var storefront: String?
    /// Apple's numeric storefront id.
    public var storefrontId: String?
    /// Whether this is a purchase or an automatic renewal.
    public var transactionReason: TransactionReason?
    /// The ISO 4217 currency code of ``price``.
    public var currency: String?
    /// The price in milli-units of ``currency`` (1990 means 1.99).
    public var price: Int64?
    /// The payment mode of the applied offer.
    public var offerDiscountType: OfferDiscountType?
    /// The id of the app download (AppTransaction) this purchase belongs to.
    public var appTransactionId: String?
    /// The ISO 8601 duration of the applied offer.
    public var offerPeriod: String?
    /// How the transaction was revoked (full or prorated refund, family revoke).
    public var revocationType: RevocationType?
    /// The refunded share in thousandths of a percent (50000 is 50 %), for prorated refunds.
    public var revocationPercentage: Int?

    /// Builds the value field by field; every field is optional, as in Apple's documentation.
    /// - Why: lets tests and fakes write payloads by value (then sign them with `AppStoreTesting`).
    public init(
        originalTransactionId: String? = nil,
        transactionId: String? = nil,
        webOrderLineItemId: String? = nil,
        bundleId: String? = nil,
        productId: String? = nil,
        subscriptionGroupIdentifier: String? = nil,
        purchaseDate: AppStoreDate? = nil,
        originalPurchaseDate: AppStoreDate? = nil,
        expiresDate: AppStoreDate? = nil,
        quantity: Int? = nil,
        type: TransactionType? = nil,
        appAccountToken: String? = nil,
        inAppOwnershipType: InAppOwnershipType? = nil,
        signedDate: AppStoreDate? = nil,
        revocationReason: RevocationReason? = nil,
        revocationDate: AppStoreDate? = nil,
        isUpgraded: Bool? = nil,
        offerType: OfferType? = nil,
        offerIdentifier: String? = nil,
        environment: AppStoreEnvironment? = nil,
        storefront: String? = nil,
        storefrontId: String? = nil,
        transactionReason: TransactionReason? = nil,
        currency: String? = nil,
        price: Int64? = nil,
        offerDiscountType: OfferDiscountType? = nil,
        appTransactionId: String? = nil,
        offerPeriod: String? = nil,
        revocationType: RevocationType? = nil,
        revocationPercentage: Int? = nil
    ) {
        self.originalTransactionId = originalTransactionId
        self.transactionId = transactionId
        self.webOrderLineItemId = webOrderLineItemId
        self.bundleId = bundleId
        self.productId = productId
        self.subscriptionGroupIdentifier = subscriptionGroupIdentifier
        self.purchaseDate = purchaseDate
        self.originalPurchaseDate = originalPurchaseDate
        self.expiresDate = expiresDate
        self.quantity = quantity
        self.type = type
        self.appAccountToken = appAccountToken
        self.inAppOwnershipType = inAppOwnershipType
        self.signedDate = signedDate
        self.revocationReason = revocationReason
        self.revocationDate = revocationDate
        self.isUpgraded = isUpgraded
        self.offerType = offerType
        self.offerIdentifier = offerIdentifier
        self.environment = environment
        self.storefront = storefront
        self.storefrontId = storefrontId
        self.transactionReason = transactionReason
        self.currency = currency
        self.price = price
        self.offerDiscountType = offerDiscountType
        self.appTransactionId = appTransactionId
        self.offerPeriod = offerPeriod
        self.revocationType = revocationType
        self.revocationPercentage = revocationPercentage
    }
}
