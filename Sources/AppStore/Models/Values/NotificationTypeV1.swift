/// The `notification_type` of a legacy (version 1) server notification.
///
/// Only needed while apps still send V1 notifications; unknown values are kept verbatim. An open set: values this library does not list decode unchanged into ``rawValue``.
public struct NotificationTypeV1: RawRepresentable, Codable, Hashable, Sendable, CustomStringConvertible {
    /// The value exactly as Apple sends it.
    public var rawValue: String

    /// Wraps any value, including ones this library does not know yet.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// The raw value as text.
    public var description: String { rawValue }

    /// `CANCEL`.
    public static let cancel = NotificationTypeV1(rawValue: "CANCEL")
    /// `CONSUMPTION_REQUEST`.
    public static let consumptionRequest = NotificationTypeV1(rawValue: "CONSUMPTION_REQUEST")
    /// `DID_CHANGE_RENEWAL_PREF`.
    public static let didChangeRenewalPref = NotificationTypeV1(rawValue: "DID_CHANGE_RENEWAL_PREF")
    /// `DID_CHANGE_RENEWAL_STATUS`.
    public static let didChangeRenewalStatus = NotificationTypeV1(rawValue: "DID_CHANGE_RENEWAL_STATUS")
    /// `DID_FAIL_TO_RENEW`.
    public static let didFailToRenew = NotificationTypeV1(rawValue: "DID_FAIL_TO_RENEW")
    /// `DID_RECOVER`.
    public static let didRecover = NotificationTypeV1(rawValue: "DID_RECOVER")
    /// `DID_RENEW`.
    public static let didRenew = NotificationTypeV1(rawValue: "DID_RENEW")
    /// `INITIAL_BUY`.
    public static let initialBuy = NotificationTypeV1(rawValue: "INITIAL_BUY")
    /// `INTERACTIVE_RENEWAL`.
    public static let interactiveRenewal = NotificationTypeV1(rawValue: "INTERACTIVE_RENEWAL")
    /// `PRICE_INCREASE_CONSENT`.
    public static let priceIncreaseConsent = NotificationTypeV1(rawValue: "PRICE_INCREASE_CONSENT")
    /// `REFUND`.
    public static let refund = NotificationTypeV1(rawValue: "REFUND")
    /// `RENEWAL`.
    public static let renewal = NotificationTypeV1(rawValue: "RENEWAL")
    /// `REVOKE`.
    public static let revoke = NotificationTypeV1(rawValue: "REVOKE")
}
