/// One entry of `pending_renewal_info` in a verifyReceipt response or V1 notification.
///
/// The legacy view of what happens at the next renewal.
public struct LegacyPendingRenewalInfo: Codable, Hashable, Sendable {
    /// The product that renews next.
    public var autoRenewProductId: String?
    /// `"1"` if the subscription renews automatically.
    public var autoRenewStatus: LegacyFlag?
    /// Why the subscription expired, as a string code.
    public var expirationIntent: String?
    /// `grace_period_expires_date_ms`.
    public var gracePeriodExpiresDate: AppStoreDate?
    /// `"1"` while Apple retries billing.
    public var isInBillingRetryPeriod: LegacyFlag?
    /// The offer code reference name.
    public var offerCodeRefName: String?
    /// The original transaction id.
    public var originalTransactionId: String?
    /// `"1"` if the customer consented to a price increase.
    public var priceConsentStatus: String?
    /// The current product.
    public var productId: String?
    /// The promotional offer id.
    public var promotionalOfferId: String?
    /// The price increase status.
    public var priceIncreaseStatus: String?

    /// Builds the value field by field; every field is optional, as in Apple's documentation.
    /// - Why: lets tests and fakes write payloads by value (then sign them with `AppStoreTesting`).
    public init(
        autoRenewProductId: String? = nil,
        autoRenewStatus: LegacyFlag? = nil,
        expirationIntent: String? = nil,
        gracePeriodExpiresDate: AppStoreDate? = nil,
        isInBillingRetryPeriod: LegacyFlag? = nil,
        offerCodeRefName: String? = nil,
        originalTransactionId: String? = nil,
        priceConsentStatus: String? = nil,
        productId: String? = nil,
        promotionalOfferId: String? = nil,
        priceIncreaseStatus: String? = nil
    ) {
        self.autoRenewProductId = autoRenewProductId
        self.autoRenewStatus = autoRenewStatus
        self.expirationIntent = expirationIntent
        self.gracePeriodExpiresDate = gracePeriodExpiresDate
        self.isInBillingRetryPeriod = isInBillingRetryPeriod
        self.offerCodeRefName = offerCodeRefName
        self.originalTransactionId = originalTransactionId
        self.priceConsentStatus = priceConsentStatus
        self.productId = productId
        self.promotionalOfferId = promotionalOfferId
        self.priceIncreaseStatus = priceIncreaseStatus
    }

    private enum CodingKeys: String, CodingKey {
        case autoRenewProductId = "auto_renew_product_id"
        case autoRenewStatus = "auto_renew_status"
        case expirationIntent = "expiration_intent"
        case gracePeriodExpiresDate = "grace_period_expires_date_ms"
        case isInBillingRetryPeriod = "is_in_billing_retry_period"
        case offerCodeRefName = "offer_code_ref_name"
        case originalTransactionId = "original_transaction_id"
        case priceConsentStatus = "price_consent_status"
        case productId = "product_id"
        case promotionalOfferId = "promotional_offer_id"
        case priceIncreaseStatus = "price_increase_status"
    }
}
