/// Validates a legacy app receipt with Apple (the deprecated `verifyReceipt` endpoint).
///
/// The seam the domain depends on: production uses ``VerifyReceiptClient``; tests use a fake
/// (`AppStoreTesting.FakeReceiptValidator`) returning canned responses.
public protocol ReceiptValidating: Sendable {
    /// Returns Apple's final answer for `receiptData` (base64), after environment redirects and retries.
    /// - Why: a non-zero ``VerifyReceiptResponse/status`` that is not transient is returned, not thrown,
    ///   so the caller decides what an invalid receipt means; transport trouble throws `apple_unavailable`.
    /// - Parameter sharedSecret: The app's shared secret (`password`); nil sends the validator's own
    ///   default. A deployment serving several apps passes the secret of the app the receipt is for.
    func verifyReceipt(_ receiptData: String, excludeOldTransactions: Bool, sharedSecret: String?) async throws -> VerifyReceiptResponse
}

extension ReceiptValidating {
    /// Validates with the validator's default shared secret.
    public func verifyReceipt(_ receiptData: String, excludeOldTransactions: Bool) async throws -> VerifyReceiptResponse {
        try await verifyReceipt(receiptData, excludeOldTransactions: excludeOldTransactions, sharedSecret: nil)
    }
}
