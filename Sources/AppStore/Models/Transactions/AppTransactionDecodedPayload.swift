/// The decoded payload of a signed AppTransaction (proof that a customer obtained the app).
///
/// Used for app-level entitlement and as the replacement of the legacy app receipt; its effective time is `receiptCreationDate`.
public struct AppTransactionDecodedPayload: Codable, Hashable, Sendable {
    /// The environment the app was downloaded from.
    public var receiptType: AppStoreEnvironment?
    /// The app's Apple id (absent outside Production).
    public var appAppleId: Int64?
    /// The app's bundle identifier.
    public var bundleId: String?
    /// The app version the AppTransaction was created for.
    public var applicationVersion: String?
    /// The App Store's identifier of that app version.
    public var versionExternalIdentifier: Int64?
    /// When the App Store signed this AppTransaction; the effective time of its verification.
    public var receiptCreationDate: AppStoreDate?
    /// When the customer first obtained the app.
    public var originalPurchaseDate: AppStoreDate?
    /// The app version the customer first obtained.
    public var originalApplicationVersion: String?
    /// A device-bound hash used by on-device verification.
    public var deviceVerification: String?
    /// The nonce mixed into ``deviceVerification`` (a UUID as text).
    public var deviceVerificationNonce: String?
    /// When the customer pre-ordered the app, if they did.
    public var preorderDate: AppStoreDate?
    /// The unique id of this app download.
    public var appTransactionId: String?
    /// The platform of the original download.
    public var originalPlatform: PurchasePlatform?

    /// Builds the value field by field; every field is optional, as in Apple's documentation.
    /// - Why: lets tests and fakes write payloads by value (then sign them with `AppStoreTesting`).
    public init(
        receiptType: AppStoreEnvironment? = nil,
        appAppleId: Int64? = nil,
        bundleId: String? = nil,
        applicationVersion: String? = nil,
        versionExternalIdentifier: Int64? = nil,
        receiptCreationDate: AppStoreDate? = nil,
        originalPurchaseDate: AppStoreDate? = nil,
        originalApplicationVersion: String? = nil,
        deviceVerification: String? = nil,
        deviceVerificationNonce: String? = nil,
        preorderDate: AppStoreDate? = nil,
        appTransactionId: String? = nil,
        originalPlatform: PurchasePlatform? = nil
    ) {
        self.receiptType = receiptType
        self.appAppleId = appAppleId
        self.bundleId = bundleId
        self.applicationVersion = applicationVersion
        self.versionExternalIdentifier = versionExternalIdentifier
        self.receiptCreationDate = receiptCreationDate
        self.originalPurchaseDate = originalPurchaseDate
        self.originalApplicationVersion = originalApplicationVersion
        self.deviceVerification = deviceVerification
        self.deviceVerificationNonce = deviceVerificationNonce
        self.preorderDate = preorderDate
        self.appTransactionId = appTransactionId
        self.originalPlatform = originalPlatform
    }
}
