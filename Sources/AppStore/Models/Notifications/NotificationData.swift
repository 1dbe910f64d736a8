/// The `data` object of a V2 notification: app identity, environment and the nested signed transaction and renewal info.
///
/// The part the ledger acts on; both nested JWS are verified along with the notification.
public struct NotificationData: Codable, Hashable, Sendable {
    /// The environment of the event.
    public var environment: AppStoreEnvironment?
    /// The app's Apple id (required in Production).
    public var appAppleId: Int64?
    /// The app's bundle identifier.
    public var bundleId: String?
    /// The app's build version.
    public var bundleVersion: String?
    /// A JWS of a ``JWSTransactionDecodedPayload``.
    public var signedTransactionInfo: String?
    /// A JWS of a ``JWSRenewalInfoDecodedPayload``.
    public var signedRenewalInfo: String?
    /// The subscription status after the event.
    public var status: SubscriptionStatus?
    /// Why the customer requested a refund, for `CONSUMPTION_REQUEST`.
    public var consumptionRequestReason: ConsumptionRequestReason?

    /// Builds the value field by field; every field is optional, as in Apple's documentation.
    /// - Why: lets tests and fakes write payloads by value (then sign them with `AppStoreTesting`).
    public init(
        environment: AppStoreEnvironment? = nil,
        appAppleId: Int64? = nil,
        bundleId: String? = nil,
        bundleVersion: String? = nil,
        signedTransactionInfo: String? = nil,
        signedRenewalInfo: String? = nil,
        status: SubscriptionStatus? = nil,
        consumptionRequestReason: ConsumptionRequestReason? = nil
    ) {
        self.environment = environment
        self.appAppleId = appAppleId
        self.bundleId = bundleId
        self.bundleVersion = bundleVersion
        self.signedTransactionInfo = signedTransactionInfo
        self.signedRenewalInfo = signedRenewalInfo
        self.status = status
        self.consumptionRequestReason = consumptionRequestReason
    }
}
