/// The `externalPurchaseToken` object of an `EXTERNAL_PURCHASE_TOKEN` notification.
///
/// Identifies a purchase made outside the App Store; it has no environment field (sandbox ids start with `SANDBOX`).
public struct ExternalPurchaseToken: Codable, Hashable, Sendable {
    /// The unique id of the external purchase token.
    public var externalPurchaseId: String?
    /// When the token was created.
    public var tokenCreationDate: AppStoreDate?
    /// The app's Apple id.
    public var appAppleId: Int64?
    /// The app's bundle identifier.
    public var bundleId: String?

    /// Builds the value field by field; every field is optional, as in Apple's documentation.
    /// - Why: lets tests and fakes write payloads by value (then sign them with `AppStoreTesting`).
    public init(
        externalPurchaseId: String? = nil,
        tokenCreationDate: AppStoreDate? = nil,
        appAppleId: Int64? = nil,
        bundleId: String? = nil
    ) {
        self.externalPurchaseId = externalPurchaseId
        self.tokenCreationDate = tokenCreationDate
        self.appAppleId = appAppleId
        self.bundleId = bundleId
    }
}
