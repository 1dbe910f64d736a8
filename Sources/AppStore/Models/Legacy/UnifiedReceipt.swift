/// The `unified_receipt` of a V1 notification: the latest receipt and its decoded transactions.
///
/// Equivalent to a verifyReceipt response for the subscription the notification is about.
public struct UnifiedReceipt: Codable, Hashable, Sendable {
    /// The environment.
    public var environment: LegacyEnvironment?
    /// The latest base64 receipt.
    public var latestReceipt: String?
    /// The latest transactions.
    public var latestReceiptInfo: [LegacyInAppTransaction]?
    /// The pending renewals.
    public var pendingRenewalInfo: [LegacyPendingRenewalInfo]?
    /// The receipt status (0 is valid).
    public var status: Int?

    /// Builds the value field by field; every field is optional, as in Apple's documentation.
    /// - Why: lets tests and fakes write payloads by value (then sign them with `AppStoreTesting`).
    public init(
        environment: LegacyEnvironment? = nil,
        latestReceipt: String? = nil,
        latestReceiptInfo: [LegacyInAppTransaction]? = nil,
        pendingRenewalInfo: [LegacyPendingRenewalInfo]? = nil,
        status: Int? = nil
    ) {
        self.environment = environment
        self.latestReceipt = latestReceipt
        self.latestReceiptInfo = latestReceiptInfo
        self.pendingRenewalInfo = pendingRenewalInfo
        self.status = status
    }

    private enum CodingKeys: String, CodingKey {
        case environment = "environment"
        case latestReceipt = "latest_receipt"
        case latestReceiptInfo = "latest_receipt_info"
        case pendingRenewalInfo = "pending_renewal_info"
        case status = "status"
    }
}
