/// The `appData` object of app-level notifications such as `RESCIND_CONSENT`.
///
/// Carries the app identity and, when present, a signed AppTransaction.
public struct AppData: Codable, Hashable, Sendable {
    /// The app's Apple id.
    public var appAppleId: Int64?
    /// The app's bundle identifier.
    public var bundleId: String?
    /// The environment of the event.
    public var environment: AppStoreEnvironment?
    /// A JWS of an ``AppTransactionDecodedPayload``.
    public var signedAppTransactionInfo: String?

    /// Builds the value field by field; every field is optional, as in Apple's documentation.
    /// - Why: lets tests and fakes write payloads by value (then sign them with `AppStoreTesting`).
    public init(
        appAppleId: Int64? = nil,
        bundleId: String? = nil,
        environment: AppStoreEnvironment? = nil,
        signedAppTransactionInfo: String? = nil
    ) {
        self.appAppleId = appAppleId
        self.bundleId = bundleId
        self.environment = environment
        self.signedAppTransactionInfo = signedAppTransactionInfo
    }
}
