import Foundation

/// One in-app purchase entry (attribute 17) of a legacy app receipt.
///
/// Its transaction ids are what the service looks up; the dates are informational until verified.
public struct AppReceiptInAppPurchase: Hashable, Sendable {
    /// Attribute 1701: the quantity purchased.
    public var quantity: Int?
    /// Attribute 1702: the product identifier.
    public var productId: String?
    /// Attribute 1703: the transaction id.
    public var transactionId: String?
    /// Attribute 1705: the original transaction id.
    public var originalTransactionId: String?
    /// Attribute 1704: the purchase date.
    public var purchaseDate: Date?
    /// Attribute 1706: the original purchase date.
    public var originalPurchaseDate: Date?
    /// Attribute 1708: the subscription expiration date.
    public var expiresDate: Date?
    /// Attribute 1711: the web order line item id.
    public var webOrderLineItemId: Int64?
    /// Attribute 1712: when Apple refunded the purchase.
    public var cancellationDate: Date?
    /// Attribute 1719: whether the period used an introductory price.
    public var isInIntroOfferPeriod: Bool?

    /// Builds an entry by value.
    /// - Why: for fakes and tests of code that consumes parsed receipts.
    public init(
        quantity: Int? = nil,
        productId: String? = nil,
        transactionId: String? = nil,
        originalTransactionId: String? = nil,
        purchaseDate: Date? = nil,
        originalPurchaseDate: Date? = nil,
        expiresDate: Date? = nil,
        webOrderLineItemId: Int64? = nil,
        cancellationDate: Date? = nil,
        isInIntroOfferPeriod: Bool? = nil
    ) {
        self.quantity = quantity
        self.productId = productId
        self.transactionId = transactionId
        self.originalTransactionId = originalTransactionId
        self.purchaseDate = purchaseDate
        self.originalPurchaseDate = originalPurchaseDate
        self.expiresDate = expiresDate
        self.webOrderLineItemId = webOrderLineItemId
        self.cancellationDate = cancellationDate
        self.isInIntroOfferPeriod = isInIntroOfferPeriod
    }
}
