/// The JSON body of a legacy (version 1) App Store server notification.
///
/// Still sent by apps that never moved to V2; it is not signed, so it only triggers a lookup (``password`` proves the sender knows the shared secret).
public struct NotificationV1: Codable, Hashable, Sendable {
    /// What happened.
    public var notificationType: NotificationTypeV1?
    /// The app's shared secret, as configured in App Store Connect.
    public var password: String?
    /// `Sandbox` or `PROD`.
    public var environment: LegacyEnvironment?
    /// The app's bundle identifier.
    public var bid: String?
    /// The app's bundle version.
    public var bvrs: String?
    /// The Apple id of the product that renews next.
    public var autoRenewAdamId: String?
    /// The product that renews next.
    public var autoRenewProductId: String?
    /// `"true"` if the subscription renews automatically.
    public var autoRenewStatus: LegacyFlag?
    /// `auto_renew_status_change_date_ms`.
    public var autoRenewStatusChangeDate: AppStoreDate?
    /// Why the subscription expired.
    public var expirationIntent: String?
    /// The latest receipt and its decoded content.
    public var unifiedReceipt: UnifiedReceipt?

    /// Builds the value field by field; every field is optional, as in Apple's documentation.
    /// - Why: lets tests and fakes write payloads by value (then sign them with `AppStoreTesting`).
    public init(
        notificationType: NotificationTypeV1? = nil,
        password: String? = nil,
        environment: LegacyEnvironment? = nil,
        bid: String? = nil,
        bvrs: String? = nil,
        autoRenewAdamId: String? = nil,
        autoRenewProductId: String? = nil,
        autoRenewStatus: LegacyFlag? = nil,
        autoRenewStatusChangeDate: AppStoreDate? = nil,
        expirationIntent: String? = nil,
        unifiedReceipt: UnifiedReceipt? = nil
    ) {
        self.notificationType = notificationType
        self.password = password
        self.environment = environment
        self.bid = bid
        self.bvrs = bvrs
        self.autoRenewAdamId = autoRenewAdamId
        self.autoRenewProductId = autoRenewProductId
        self.autoRenewStatus = autoRenewStatus
        self.autoRenewStatusChangeDate = autoRenewStatusChangeDate
        self.expirationIntent = expirationIntent
        self.unifiedReceipt = unifiedReceipt
    }

    private enum CodingKeys: String, CodingKey {
        case notificationType = "notification_type"
        case password = "password"
        case environment = "environment"
        case bid = "bid"
        case bvrs = "bvrs"
        case autoRenewAdamId = "auto_renew_adam_id"
        case autoRenewProductId = "auto_renew_product_id"
        case autoRenewStatus = "auto_renew_status"
        case autoRenewStatusChangeDate = "auto_renew_status_change_date_ms"
        case expirationIntent = "expiration_intent"
        case unifiedReceipt = "unified_receipt"
    }
}
