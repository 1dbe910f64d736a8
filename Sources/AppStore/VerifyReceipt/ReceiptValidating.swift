import Logging

/// Validates a legacy app receipt with Apple (the deprecated `verifyReceipt` endpoint).
///
/// The seam the domain depends on: production uses ``VerifyReceiptClient``; tests use a fake
/// (`AppStoreTesting.FakeReceiptValidator`) returning canned responses.
public protocol ReceiptValidating: Sendable {
    /// Returns Apple's final answer for `receiptData` (base64), after environment redirects and retries.
    /// - Why: a non-zero ``VerifyReceiptResponse/status`` that judges the receipt is returned, not
    ///   thrown, so the caller decides what an invalid receipt means. Transport trouble and transient
    ///   statuses throw `apple_unavailable`; answers that say nothing of the receipt (21000, a
    ///   21007/21008 left after the redirect, a body that is not verifyReceipt JSON) `invalid_response`.
    /// - Parameter sharedSecret: The app's shared secret (`password`); nil sends the validator's own
    ///   default. A deployment serving several apps passes the secret of the app the receipt is for.
    /// - Parameter logger: Where this call's lines go (retries, redirects), so they carry the
    ///   caller's metadata such as a request id; nil uses the validator's own logger.
    func verifyReceipt(_ receiptData: String, excludeOldTransactions: Bool, sharedSecret: String?, logger: Logger?) async throws -> VerifyReceiptResponse
}

extension ReceiptValidating {
    /// Validates with the validator's default shared secret.
    public func verifyReceipt(_ receiptData: String, excludeOldTransactions: Bool) async throws -> VerifyReceiptResponse {
        try await verifyReceipt(receiptData, excludeOldTransactions: excludeOldTransactions, sharedSecret: nil, logger: nil)
    }

    /// Validates with `sharedSecret`, logging to the validator's own logger.
    public func verifyReceipt(_ receiptData: String, excludeOldTransactions: Bool, sharedSecret: String?) async throws -> VerifyReceiptResponse {
        try await verifyReceipt(receiptData, excludeOldTransactions: excludeOldTransactions, sharedSecret: sharedSecret, logger: nil)
    }
}
