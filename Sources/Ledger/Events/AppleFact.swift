/// The body of every `apple.*` event: the input as received, byte for byte, next to what was decoded.
///
/// `raw` is the exact text Apple (or the client) sent: the JWS, the V1 JSON body, or the verifyReceipt
/// response. The observations are what the fold reads, so replay never has to verify or parse again.
public struct AppleFact: Codable, Hashable, Sendable {
    /// The exact input text (a V1 notification's with its `password` redacted).
    public var raw: String
    /// The notification type and subtype, for notifications (`DID_RENEW`, `AUTO_RENEW_DISABLED`, ...).
    public var notificationType: String?
    public var subtype: String?
    /// Apple's id for the notification, or nil.
    public var notificationUUID: String?
    /// The bundle id the input was for.
    public var bundleId: String?
    /// The user the input was submitted for (client submissions, receipts).
    public var userId: String?
    public var transactions: [TransactionObservation]
    public var renewals: [RenewalObservation]

    /// The chains (original transaction ids) its transactions and renewal infos name: the chains it
    /// counts for.
    public var chains: Set<String> {
        Set(transactions.map(\.originalTransactionId) + renewals.map(\.originalTransactionId))
    }

    /// Creates a fact.
    public init(
        raw: String, notificationType: String? = nil, subtype: String? = nil, notificationUUID: String? = nil,
        bundleId: String? = nil, userId: String? = nil,
        transactions: [TransactionObservation] = [], renewals: [RenewalObservation] = []
    ) {
        self.raw = raw
        self.notificationType = notificationType
        self.subtype = subtype
        self.notificationUUID = notificationUUID
        self.bundleId = bundleId
        self.userId = userId
        self.transactions = transactions
        self.renewals = renewals
    }
}
