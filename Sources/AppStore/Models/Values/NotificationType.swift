/// The `notificationType` of an App Store Server Notification V2.
///
/// Drives how the ledger folds a notification; Apple adds types over time, so unknown ones are kept verbatim. An open set: values this library does not list decode unchanged into ``rawValue``.
public struct NotificationType: RawRepresentable, Codable, Hashable, Sendable, CustomStringConvertible {
    /// The value exactly as Apple sends it.
    public var rawValue: String

    /// Wraps any value, including ones this library does not know yet.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// The raw value as text.
    public var description: String { rawValue }

    /// `CONSUMPTION_REQUEST`.
    public static let consumptionRequest = NotificationType(rawValue: "CONSUMPTION_REQUEST")
    /// `DID_CHANGE_RENEWAL_PREF`.
    public static let didChangeRenewalPref = NotificationType(rawValue: "DID_CHANGE_RENEWAL_PREF")
    /// `DID_CHANGE_RENEWAL_STATUS`.
    public static let didChangeRenewalStatus = NotificationType(rawValue: "DID_CHANGE_RENEWAL_STATUS")
    /// `DID_FAIL_TO_RENEW`.
    public static let didFailToRenew = NotificationType(rawValue: "DID_FAIL_TO_RENEW")
    /// `DID_RENEW`.
    public static let didRenew = NotificationType(rawValue: "DID_RENEW")
    /// `EXPIRED`.
    public static let expired = NotificationType(rawValue: "EXPIRED")
    /// `EXTERNAL_PURCHASE_TOKEN`.
    public static let externalPurchaseToken = NotificationType(rawValue: "EXTERNAL_PURCHASE_TOKEN")
    /// `GRACE_PERIOD_EXPIRED`.
    public static let gracePeriodExpired = NotificationType(rawValue: "GRACE_PERIOD_EXPIRED")
    /// `METADATA_UPDATE`.
    public static let metadataUpdate = NotificationType(rawValue: "METADATA_UPDATE")
    /// `MIGRATION`.
    public static let migration = NotificationType(rawValue: "MIGRATION")
    /// `OFFER_REDEEMED`.
    public static let offerRedeemed = NotificationType(rawValue: "OFFER_REDEEMED")
    /// `ONE_TIME_CHARGE`.
    public static let oneTimeCharge = NotificationType(rawValue: "ONE_TIME_CHARGE")
    /// `PRICE_CHANGE`.
    public static let priceChange = NotificationType(rawValue: "PRICE_CHANGE")
    /// `PRICE_INCREASE`.
    public static let priceIncrease = NotificationType(rawValue: "PRICE_INCREASE")
    /// `REFUND`.
    public static let refund = NotificationType(rawValue: "REFUND")
    /// `REFUND_DECLINED`.
    public static let refundDeclined = NotificationType(rawValue: "REFUND_DECLINED")
    /// `REFUND_REVERSED`.
    public static let refundReversed = NotificationType(rawValue: "REFUND_REVERSED")
    /// `RENEWAL_EXTENDED`.
    public static let renewalExtended = NotificationType(rawValue: "RENEWAL_EXTENDED")
    /// `RENEWAL_EXTENSION`.
    public static let renewalExtension = NotificationType(rawValue: "RENEWAL_EXTENSION")
    /// `RESCIND_CONSENT`.
    public static let rescindConsent = NotificationType(rawValue: "RESCIND_CONSENT")
    /// `REVOKE`.
    public static let revoke = NotificationType(rawValue: "REVOKE")
    /// `SUBSCRIBED`.
    public static let subscribed = NotificationType(rawValue: "SUBSCRIBED")
    /// `TEST`.
    public static let test = NotificationType(rawValue: "TEST")
}
