/// What Apple asserted about a subscription's next renewal at one moment.
public struct RenewalObservation: Codable, Hashable, Sendable {
    public var originalTransactionId: String
    /// Whether the subscription will renew; nil when the source did not say.
    public var autoRenewStatus: Bool?
    /// The product the subscription renews to (differs from the current one after a downgrade).
    public var autoRenewProductId: String?
    public var productId: String?
    public var isInBillingRetryPeriod: Bool?
    public var gracePeriodExpiresDate: Int64?
    public var expirationIntent: Int?
    public var priceIncreaseStatus: Int?
    public var environment: String?
    /// When Apple asserted this; the latest renewal observation of a chain wins.
    public var assertedAt: Int64

    /// Creates an observation.
    public init(
        originalTransactionId: String, autoRenewStatus: Bool? = nil, autoRenewProductId: String? = nil,
        productId: String? = nil, isInBillingRetryPeriod: Bool? = nil, gracePeriodExpiresDate: Int64? = nil,
        expirationIntent: Int? = nil, priceIncreaseStatus: Int? = nil, environment: String? = nil,
        assertedAt: Int64
    ) {
        self.originalTransactionId = originalTransactionId
        self.autoRenewStatus = autoRenewStatus
        self.autoRenewProductId = autoRenewProductId
        self.productId = productId
        self.isInBillingRetryPeriod = isInBillingRetryPeriod
        self.gracePeriodExpiresDate = gracePeriodExpiresDate
        self.expirationIntent = expirationIntent
        self.priceIncreaseStatus = priceIncreaseStatus
        self.environment = environment
        self.assertedAt = assertedAt
    }
}
