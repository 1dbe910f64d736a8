import Foundation

/// The JSON answer of Apple's `verifyReceipt` endpoint.
///
/// ``status`` 0 means valid; 21007/21008 mean the other environment; `is-retryable` marks temporary failures.
public struct VerifyReceiptResponse: Codable, Hashable, Sendable {
    /// The result code (0 valid, 21xxx errors).
    public var status: Int?
    /// `Sandbox` or `Production`.
    public var environment: LegacyEnvironment?
    /// Whether the request may succeed if retried.
    public var isRetryable: LegacyFlag?
    /// The decoded receipt.
    public var receipt: LegacyReceipt?
    /// The latest base64 receipt (subscriptions only).
    public var latestReceipt: String?
    /// All subscription transactions, newest first.
    public var latestReceiptInfo: [LegacyInAppTransaction]?
    /// The pending renewals of each subscription.
    public var pendingRenewalInfo: [LegacyPendingRenewalInfo]?
    /// The response body byte for byte, as ``VerifyReceiptClient`` received it (not encoded or decoded).
    /// - Why: the decoded fields are only the ones this library reads; a ledger keeps Apple's whole answer.
    public var receivedBody: Data? = nil

    /// Builds the value field by field; every field is optional, as in Apple's documentation.
    /// - Why: lets tests and fakes write payloads by value (then sign them with `AppStoreTesting`).
    public init(
        status: Int? = nil,
        environment: LegacyEnvironment? = nil,
        isRetryable: LegacyFlag? = nil,
        receipt: LegacyReceipt? = nil,
        latestReceipt: String? = nil,
        latestReceiptInfo: [LegacyInAppTransaction]? = nil,
        pendingRenewalInfo: [LegacyPendingRenewalInfo]? = nil
    ) {
        self.status = status
        self.environment = environment
        self.isRetryable = isRetryable
        self.receipt = receipt
        self.latestReceipt = latestReceipt
        self.latestReceiptInfo = latestReceiptInfo
        self.pendingRenewalInfo = pendingRenewalInfo
    }

    private enum CodingKeys: String, CodingKey {
        case status = "status"
        case environment = "environment"
        case isRetryable = "is-retryable"
        case receipt = "receipt"
        case latestReceipt = "latest_receipt"
        case latestReceiptInfo = "latest_receipt_info"
        case pendingRenewalInfo = "pending_renewal_info"
    }
}
