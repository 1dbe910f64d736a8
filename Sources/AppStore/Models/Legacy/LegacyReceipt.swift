/// The `receipt` object of a verifyReceipt response.
///
/// The app-level part of a decoded receipt plus its `in_app` transactions.
public struct LegacyReceipt: Codable, Hashable, Sendable {
    /// `Production`, `ProductionSandbox`, ...
    public var receiptType: String?
    /// The app's Apple id.
    public var adamId: Int64?
    /// The app's Apple id (0 in sandbox).
    public var appItemId: Int64?
    /// The app's bundle identifier.
    public var bundleId: String?
    /// The app version.
    public var applicationVersion: String?
    /// The version first obtained.
    public var originalApplicationVersion: String?
    /// `receipt_creation_date_ms`.
    public var receiptCreationDate: AppStoreDate?
    /// `request_date_ms`.
    public var requestDate: AppStoreDate?
    /// `original_purchase_date_ms`.
    public var originalPurchaseDate: AppStoreDate?
    /// `expiration_date_ms` (volume purchase only).
    public var expirationDate: AppStoreDate?
    /// `preorder_date_ms`.
    public var preorderDate: AppStoreDate?
    /// The in-app purchase transactions.
    public var inApp: [LegacyInAppTransaction]?

    /// Builds the value field by field; every field is optional, as in Apple's documentation.
    /// - Why: lets tests and fakes write payloads by value (then sign them with `AppStoreTesting`).
    public init(
        receiptType: String? = nil,
        adamId: Int64? = nil,
        appItemId: Int64? = nil,
        bundleId: String? = nil,
        applicationVersion: String? = nil,
        originalApplicationVersion: String? = nil,
        receiptCreationDate: AppStoreDate? = nil,
        requestDate: AppStoreDate? = nil,
        originalPurchaseDate: AppStoreDate? = nil,
        expirationDate: AppStoreDate? = nil,
        preorderDate: AppStoreDate? = nil,
        inApp: [LegacyInAppTransaction]? = nil
    ) {
        self.receiptType = receiptType
        self.adamId = adamId
        self.appItemId = appItemId
        self.bundleId = bundleId
        self.applicationVersion = applicationVersion
        self.originalApplicationVersion = originalApplicationVersion
        self.receiptCreationDate = receiptCreationDate
        self.requestDate = requestDate
        self.originalPurchaseDate = originalPurchaseDate
        self.expirationDate = expirationDate
        self.preorderDate = preorderDate
        self.inApp = inApp
    }

    private enum CodingKeys: String, CodingKey {
        case receiptType = "receipt_type"
        case adamId = "adam_id"
        case appItemId = "app_item_id"
        case bundleId = "bundle_id"
        case applicationVersion = "application_version"
        case originalApplicationVersion = "original_application_version"
        case receiptCreationDate = "receipt_creation_date_ms"
        case requestDate = "request_date_ms"
        case originalPurchaseDate = "original_purchase_date_ms"
        case expirationDate = "expiration_date_ms"
        case preorderDate = "preorder_date_ms"
        case inApp = "in_app"
    }
}
