/// One entry of `in_app` / `latest_receipt_info` in a verifyReceipt response or V1 notification.
///
/// The legacy, snake_case view of a transaction; dates are `*_ms` strings and flags `"true"`/`"1"` strings.
public struct LegacyInAppTransaction: Codable, Hashable, Sendable {
    /// The number of items purchased, as a string.
    public var quantity: String?
    /// The product identifier.
    public var productId: String?
    /// The transaction id.
    public var transactionId: String?
    /// The original transaction id.
    public var originalTransactionId: String?
    /// The id of the subscription purchase event.
    public var webOrderLineItemId: String?
    /// `purchase_date_ms`.
    public var purchaseDate: AppStoreDate?
    /// `original_purchase_date_ms`.
    public var originalPurchaseDate: AppStoreDate?
    /// `expires_date_ms`.
    public var expiresDate: AppStoreDate?
    /// `cancellation_date_ms`: when Apple refunded the transaction.
    public var cancellationDate: AppStoreDate?
    /// `"1"` for an app issue, `"0"` for another reason.
    public var cancellationReason: String?
    /// Whether the period is a free trial.
    public var isTrialPeriod: LegacyFlag?
    /// Whether the period uses an introductory price.
    public var isInIntroOfferPeriod: LegacyFlag?
    /// Whether the subscription was upgraded away.
    public var isUpgraded: LegacyFlag?
    /// Purchased or family shared.
    public var inAppOwnershipType: InAppOwnershipType?
    /// The offer code reference name.
    public var offerCodeRefName: String?
    /// The promotional offer id.
    public var promotionalOfferId: String?
    /// The subscription group.
    public var subscriptionGroupIdentifier: String?
    /// The app's account token.
    public var appAccountToken: String?

    /// Builds the value field by field; every field is optional, as in Apple's documentation.
    /// - Why: lets tests and fakes write payloads by value (then sign them with `AppStoreTesting`).
    public init(
        quantity: String? = nil,
        productId: String? = nil,
        transactionId: String? = nil,
        originalTransactionId: String? = nil,
        webOrderLineItemId: String? = nil,
        purchaseDate: AppStoreDate? = nil,
        originalPurchaseDate: AppStoreDate? = nil,
        expiresDate: AppStoreDate? = nil,
        cancellationDate: AppStoreDate? = nil,
        cancellationReason: String? = nil,
        isTrialPeriod: LegacyFlag? = nil,
        isInIntroOfferPeriod: LegacyFlag? = nil,
        isUpgraded: LegacyFlag? = nil,
        inAppOwnershipType: InAppOwnershipType? = nil,
        offerCodeRefName: String? = nil,
        promotionalOfferId: String? = nil,
        subscriptionGroupIdentifier: String? = nil,
        appAccountToken: String? = nil
    ) {
        self.quantity = quantity
        self.productId = productId
        self.transactionId = transactionId
        self.originalTransactionId = originalTransactionId
        self.webOrderLineItemId = webOrderLineItemId
        self.purchaseDate = purchaseDate
        self.originalPurchaseDate = originalPurchaseDate
        self.expiresDate = expiresDate
        self.cancellationDate = cancellationDate
        self.cancellationReason = cancellationReason
        self.isTrialPeriod = isTrialPeriod
        self.isInIntroOfferPeriod = isInIntroOfferPeriod
        self.isUpgraded = isUpgraded
        self.inAppOwnershipType = inAppOwnershipType
        self.offerCodeRefName = offerCodeRefName
        self.promotionalOfferId = promotionalOfferId
        self.subscriptionGroupIdentifier = subscriptionGroupIdentifier
        self.appAccountToken = appAccountToken
    }

    private enum CodingKeys: String, CodingKey {
        case quantity = "quantity"
        case productId = "product_id"
        case transactionId = "transaction_id"
        case originalTransactionId = "original_transaction_id"
        case webOrderLineItemId = "web_order_line_item_id"
        case purchaseDate = "purchase_date_ms"
        case originalPurchaseDate = "original_purchase_date_ms"
        case expiresDate = "expires_date_ms"
        case cancellationDate = "cancellation_date_ms"
        case cancellationReason = "cancellation_reason"
        case isTrialPeriod = "is_trial_period"
        case isInIntroOfferPeriod = "is_in_intro_offer_period"
        case isUpgraded = "is_upgraded"
        case inAppOwnershipType = "in_app_ownership_type"
        case offerCodeRefName = "offer_code_ref_name"
        case promotionalOfferId = "promotional_offer_id"
        case subscriptionGroupIdentifier = "subscription_group_identifier"
        case appAccountToken = "app_account_token"
    }
}
