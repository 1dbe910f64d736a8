/// The JSON body POSTed to Apple's deprecated `verifyReceipt` endpoint.
///
/// Built by `VerifyReceiptClient`; public so fakes can decode what the client sent.
public struct VerifyReceiptRequest: Codable, Hashable, Sendable {
    /// The base64 app receipt.
    public var receiptData: String?
    /// The app's shared secret (needed for auto-renewable subscriptions).
    public var password: String?
    /// Only return the latest renewal of each subscription.
    public var excludeOldTransactions: Bool?

    /// Builds the value field by field; every field is optional, as in Apple's documentation.
    /// - Why: lets tests and fakes write payloads by value (then sign them with `AppStoreTesting`).
    public init(
        receiptData: String? = nil,
        password: String? = nil,
        excludeOldTransactions: Bool? = nil
    ) {
        self.receiptData = receiptData
        self.password = password
        self.excludeOldTransactions = excludeOldTransactions
    }

    private enum CodingKeys: String, CodingKey {
        case receiptData = "receipt-data"
        case password = "password"
        case excludeOldTransactions = "exclude-old-transactions"
    }
}
