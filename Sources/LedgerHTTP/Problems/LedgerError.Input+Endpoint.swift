import Ledger

extension LedgerError.Input {
    /// Where this input is posted, with the key it needs, for an answer to a body sent elsewhere.
    var endpoint: String {
        switch self {
        case .notificationV1: "/v1/apple/notifications/v1"
        case .notificationV2: "/v1/apple/notifications/v2"
        case .transactionSubmission: "/v1/apple/transactions, with an API key of scope ingest"
        case .receiptSubmission: "/v1/apple/receipts, with an API key of scope ingest"
        }
    }
}
