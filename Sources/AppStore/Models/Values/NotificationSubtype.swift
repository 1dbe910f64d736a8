/// The `subtype` that refines a V2 notification's type.
///
/// Distinguishes e.g. an initial buy from a resubscribe; unknown subtypes are kept verbatim. An open set: values this library does not list decode unchanged into ``rawValue``.
public struct NotificationSubtype: RawRepresentable, Codable, Hashable, Sendable, CustomStringConvertible {
    /// The value exactly as Apple sends it.
    public var rawValue: String

    /// Wraps any value, including ones this library does not know yet.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// The raw value as text.
    public var description: String { rawValue }

    /// `ACCEPTED`.
    public static let accepted = NotificationSubtype(rawValue: "ACCEPTED")
    /// `AUTO_RENEW_DISABLED`.
    public static let autoRenewDisabled = NotificationSubtype(rawValue: "AUTO_RENEW_DISABLED")
    /// `AUTO_RENEW_ENABLED`.
    public static let autoRenewEnabled = NotificationSubtype(rawValue: "AUTO_RENEW_ENABLED")
    /// `BILLING_RECOVERY`.
    public static let billingRecovery = NotificationSubtype(rawValue: "BILLING_RECOVERY")
    /// `BILLING_RETRY`.
    public static let billingRetry = NotificationSubtype(rawValue: "BILLING_RETRY")
    /// `DOWNGRADE`.
    public static let downgrade = NotificationSubtype(rawValue: "DOWNGRADE")
    /// `FAILURE`.
    public static let failure = NotificationSubtype(rawValue: "FAILURE")
    /// `GRACE_PERIOD`.
    public static let gracePeriod = NotificationSubtype(rawValue: "GRACE_PERIOD")
    /// `INITIAL_BUY`.
    public static let initialBuy = NotificationSubtype(rawValue: "INITIAL_BUY")
    /// `PENDING`.
    public static let pending = NotificationSubtype(rawValue: "PENDING")
    /// `PRICE_INCREASE`.
    public static let priceIncrease = NotificationSubtype(rawValue: "PRICE_INCREASE")
    /// `PRODUCT_NOT_FOR_SALE`.
    public static let productNotForSale = NotificationSubtype(rawValue: "PRODUCT_NOT_FOR_SALE")
    /// `RESUBSCRIBE`.
    public static let resubscribe = NotificationSubtype(rawValue: "RESUBSCRIBE")
    /// `SUMMARY`.
    public static let summary = NotificationSubtype(rawValue: "SUMMARY")
    /// `UNREPORTED`.
    public static let unreported = NotificationSubtype(rawValue: "UNREPORTED")
    /// `UPGRADE`.
    public static let upgrade = NotificationSubtype(rawValue: "UPGRADE")
    /// `VOLUNTARY`.
    public static let voluntary = NotificationSubtype(rawValue: "VOLUNTARY")
}
