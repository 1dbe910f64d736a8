/// The decoded payload of an App Store Server Notification V2.
///
/// Says what happened (type, subtype) and carries exactly one of ``data``, ``summary``, ``externalPurchaseToken`` or ``appData``.
public struct ResponseBodyV2DecodedPayload: Codable, Hashable, Sendable {
    /// What happened.
    public var notificationType: NotificationType?
    /// Details of what happened, if the type has subtypes.
    public var subtype: NotificationSubtype?
    /// The unique id of this notification; Apple retries with the same id (a natural dedupe key).
    public var notificationUUID: String?
    /// The app, environment and nested signed transaction/renewal info, for subscription events.
    public var data: NotificationData?
    /// The notification version (`2.0`).
    public var version: String?
    /// When the App Store signed the notification; the effective time of its verification.
    public var signedDate: AppStoreDate?
    /// The result of a mass renewal-date extension, for `RENEWAL_EXTENSION`/`SUMMARY`.
    public var summary: NotificationSummary?
    /// The token of an external purchase, for `EXTERNAL_PURCHASE_TOKEN`.
    public var externalPurchaseToken: ExternalPurchaseToken?
    /// App-level data, for `RESCIND_CONSENT` and other app events.
    public var appData: AppData?

    /// The app the notification is about, from whichever of its objects it carries.
    public var bundleId: String? {
        data?.bundleId ?? summary?.bundleId ?? appData?.bundleId ?? externalPurchaseToken?.bundleId
    }

    /// Builds the value field by field; every field is optional, as in Apple's documentation.
    /// - Why: lets tests and fakes write payloads by value (then sign them with `AppStoreTesting`).
    public init(
        notificationType: NotificationType? = nil,
        subtype: NotificationSubtype? = nil,
        notificationUUID: String? = nil,
        data: NotificationData? = nil,
        version: String? = nil,
        signedDate: AppStoreDate? = nil,
        summary: NotificationSummary? = nil,
        externalPurchaseToken: ExternalPurchaseToken? = nil,
        appData: AppData? = nil
    ) {
        self.notificationType = notificationType
        self.subtype = subtype
        self.notificationUUID = notificationUUID
        self.data = data
        self.version = version
        self.signedDate = signedDate
        self.summary = summary
        self.externalPurchaseToken = externalPurchaseToken
        self.appData = appData
    }
}
