/// The decoded payload of a signed subscription renewal info (`signedRenewalInfo`).
///
/// Tells what happens at the next renewal (auto-renew on/off, billing retry, grace period). It carries no bundle id, so the verifier checks only its environment.
public struct JWSRenewalInfoDecodedPayload: Codable, Hashable, Sendable {
    /// Why the subscription expired, if it did.
    public var expirationIntent: ExpirationIntent?
    /// The original transaction id of the subscription.
    public var originalTransactionId: String?
    /// The product that will renew at the next period.
    public var autoRenewProductId: String?
    /// The product of the current period.
    public var productId: String?
    /// Whether the subscription renews automatically.
    public var autoRenewStatus: AutoRenewStatus?
    /// Whether Apple is still trying to bill the customer.
    public var isInBillingRetryPeriod: Bool?
    /// The customer's answer to a price increase.
    public var priceIncreaseStatus: PriceIncreaseStatus?
    /// When the billing grace period ends.
    public var gracePeriodExpiresDate: AppStoreDate?
    /// The kind of offer applied at the next renewal.
    public var offerType: OfferType?
    /// The offer id applied at the next renewal.
    public var offerIdentifier: String?
    /// When the App Store signed this JWS; the effective time of its verification.
    public var signedDate: AppStoreDate?
    /// The environment that produced the renewal info.
    public var environment: AppStoreEnvironment?
    /// The start of the latest run of contiguous subscription periods.
    public var recentSubscriptionStartDate: AppStoreDate?
    /// When the subscription will renew.
    public var renewalDate: AppStoreDate?
    /// The ISO 4217 currency of ``renewalPrice``.
    public var currency: String?
    /// The next renewal price in milli-units of ``currency``.
    public var renewalPrice: Int64?
    /// The payment mode of the offer at the next renewal.
    public var offerDiscountType: OfferDiscountType?
    /// Win-back offers the customer is eligible for.
    public var eligibleWinBackOfferIds: [String]?
    /// The app's account token (a UUID as text).
    public var appAccountToken: String?
    /// The id of the app download this subscription belongs to.
    public var appTransactionId: String?
    /// The ISO 8601 duration of the offer at the next renewal.
    public var offerPeriod: String?

    /// Builds the value field by field; every field is optional, as in Apple's documentation.
    /// - Why: lets tests and fakes write payloads by value (then sign them with `AppStoreTesting`).
    public init(
        expirationIntent: ExpirationIntent? = nil,
        originalTransactionId: String? = nil,
        autoRenewProductId: String? = nil,
        productId: String? = nil,
        autoRenewStatus: AutoRenewStatus? = nil,
        isInBillingRetryPeriod: Bool? = nil,
        priceIncreaseStatus: PriceIncreaseStatus? = nil,
        gracePeriodExpiresDate: AppStoreDate? = nil,
        offerType: OfferType? = nil,
        offerIdentifier: String? = nil,
        signedDate: AppStoreDate? = nil,
        environment: AppStoreEnvironment? = nil,
        recentSubscriptionStartDate: AppStoreDate? = nil,
        renewalDate: AppStoreDate? = nil,
        currency: String? = nil,
        renewalPrice: Int64? = nil,
        offerDiscountType: OfferDiscountType? = nil,
        eligibleWinBackOfferIds: [String]? = nil,
        appAccountToken: String? = nil,
        appTransactionId: String? = nil,
        offerPeriod: String? = nil
    ) {
        self.expirationIntent = expirationIntent
        self.originalTransactionId = originalTransactionId
        self.autoRenewProductId = autoRenewProductId
        self.productId = productId
        self.autoRenewStatus = autoRenewStatus
        self.isInBillingRetryPeriod = isInBillingRetryPeriod
        self.priceIncreaseStatus = priceIncreaseStatus
        self.gracePeriodExpiresDate = gracePeriodExpiresDate
        self.offerType = offerType
        self.offerIdentifier = offerIdentifier
        self.signedDate = signedDate
        self.environment = environment
        self.recentSubscriptionStartDate = recentSubscriptionStartDate
        self.renewalDate = renewalDate
        self.currency = currency
        self.renewalPrice = renewalPrice
        self.offerDiscountType = offerDiscountType
        self.eligibleWinBackOfferIds = eligibleWinBackOfferIds
        self.appAccountToken = appAccountToken
        self.appTransactionId = appTransactionId
        self.offerPeriod = offerPeriod
    }
}
