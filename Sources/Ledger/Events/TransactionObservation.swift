/// What Apple asserted about one transaction at one moment, reduced to the fields the fold relies on.
///
/// Every source (a StoreKit 2 JWS, a V2 notification, a V1 notification, a verifyReceipt response)
/// becomes these observations, so the fold has one vocabulary. Dates are Unix milliseconds.
public struct TransactionObservation: Codable, Hashable, Sendable {
    public var transactionId: String
    public var originalTransactionId: String
    public var productId: String
    public var bundleId: String?
    /// Apple's product type, e.g. `Auto-Renewable Subscription`, `Non-Consumable`.
    public var type: String
    public var purchaseDate: Int64
    public var expiresDate: Int64?
    public var revocationDate: Int64?
    public var revocationReason: Int?
    /// `REFUND_FULL`, `REFUND_PRORATED`, `FAMILY_REVOKE`, when Apple says.
    public var revocationType: String?
    public var isUpgraded: Bool
    /// `PURCHASED` or `FAMILY_SHARED`.
    public var ownership: String
    /// `Production`, `Sandbox`, `Xcode`, `LocalTesting`.
    public var environment: String
    public var appAccountToken: String?
    public var offerType: Int?
    /// When Apple asserted this (the JWS `signedDate`, a receipt's `request_date_ms`, or the time a V1
    /// notification was received): the later assertion about a transaction wins.
    public var assertedAt: Int64

    /// Creates an observation.
    public init(
        transactionId: String, originalTransactionId: String, productId: String, bundleId: String? = nil,
        type: String, purchaseDate: Int64, expiresDate: Int64? = nil, revocationDate: Int64? = nil,
        revocationReason: Int? = nil, revocationType: String? = nil, isUpgraded: Bool = false,
        ownership: String = "PURCHASED", environment: String, appAccountToken: String? = nil,
        offerType: Int? = nil, assertedAt: Int64
    ) {
        self.transactionId = transactionId
        self.originalTransactionId = originalTransactionId
        self.productId = productId
        self.bundleId = bundleId
        self.type = type
        self.purchaseDate = purchaseDate
        self.expiresDate = expiresDate
        self.revocationDate = revocationDate
        self.revocationReason = revocationReason
        self.revocationType = revocationType
        self.isUpgraded = isUpgraded
        self.ownership = ownership
        self.environment = environment
        self.appAccountToken = appAccountToken
        self.offerType = offerType
        self.assertedAt = assertedAt
    }
}
