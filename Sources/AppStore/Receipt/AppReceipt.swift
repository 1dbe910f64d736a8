import Foundation

/// The content of a legacy PKCS#7 app receipt (`Bundle.main.appStoreReceiptURL`), as parsed offline.
///
/// Parsing does not prove authenticity (the PKCS#7 signature is not checked); it extracts the ids
/// to look the purchase up through a verified channel (the App Store Server API or verifyReceipt).
public struct AppReceipt: Hashable, Sendable {
    /// Attribute 0: the receipt type (`Production`, `ProductionSandbox`, `Xcode`, ...).
    public var receiptType: String?
    /// Attribute 2: the app's bundle identifier.
    public var bundleId: String?
    /// Attribute 3: the app version the receipt was issued for.
    public var applicationVersion: String?
    /// Attribute 19: the app version the customer first obtained.
    public var originalApplicationVersion: String?
    /// Attribute 12: when the receipt was created.
    public var creationDate: Date?
    /// Attribute 21: when the receipt expires (volume purchase; Xcode writes year 4001).
    public var expirationDate: Date?
    /// Attribute 17, repeated: the in-app purchases, in receipt order.
    public var inAppPurchases: [AppReceiptInAppPurchase]

    /// Builds a receipt by value.
    /// - Why: for fakes and tests of code that consumes parsed receipts.
    public init(
        receiptType: String? = nil,
        bundleId: String? = nil,
        applicationVersion: String? = nil,
        originalApplicationVersion: String? = nil,
        creationDate: Date? = nil,
        expirationDate: Date? = nil,
        inAppPurchases: [AppReceiptInAppPurchase] = []
    ) {
        self.receiptType = receiptType
        self.bundleId = bundleId
        self.applicationVersion = applicationVersion
        self.originalApplicationVersion = originalApplicationVersion
        self.creationDate = creationDate
        self.expirationDate = expirationDate
        self.inAppPurchases = inAppPurchases
    }
}
