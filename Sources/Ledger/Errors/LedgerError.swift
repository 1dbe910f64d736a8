/// A typed failure of a ledger use case, with a stable snake_case code the HTTP layer returns as is.
///
/// Verification failures keep `AppStoreError`'s own codes; store failures keep `EventStoreError`'s.
public struct LedgerError: Error, Sendable, Hashable, CustomStringConvertible {
    public var code: Code
    public var message: String
    /// For `malformed_body`: the input the body is, when it was given to another input's use case
    /// (a V1 notification to the V2 webhook, a submission to a webhook), so the caller can say where
    /// to send it.
    public var belongsTo: Input?

    /// One of the inputs the ledger takes, each at its own endpoint.
    public enum Input: Sendable, Hashable {
        case notificationV1
        case notificationV2
        case transactionSubmission
        case receiptSubmission

        /// The body as a sentence names it, with the field that tells it.
        public var summary: String {
            switch self {
            case .notificationV1: "a V1 notification (notification_type, no signedPayload)"
            case .notificationV2: "a V2 notification ({\"signedPayload\": ...})"
            case .transactionSubmission: "a transaction submission (signed_transaction)"
            case .receiptSubmission: "a receipt submission (receipt_data)"
            }
        }

        /// The input a JSON object with these field names is, told by the field only it has
        /// (`signedPayload`, `notification_type`, `signed_transaction`, `receipt_data`), or nil.
        public static func told(byFields names: some Sequence<String>) -> Input? {
            let names = Set(names)
            if names.contains("signedPayload") { return .notificationV2 }
            if names.contains("notification_type") { return .notificationV1 }
            if names.contains("signed_transaction") { return .transactionSubmission }
            if names.contains("receipt_data") { return .receiptSubmission }
            return nil
        }
    }

    /// Creates an error.
    public init(_ code: Code, _ message: String, belongsTo: Input? = nil) {
        self.code = code
        self.message = message
        self.belongsTo = belongsTo
    }

    public var description: String { "\(code): \(message)" }

    /// A stable identifier for a kind of failure.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        public let rawValue: String
        private init(_ rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// The request body is not what the endpoint takes.
        public static let malformedBody = Code("malformed_body")
        /// A V1 notification's password is not the app's shared secret.
        public static let invalidPassword = Code("invalid_password")
        /// The input names an app that is not configured.
        public static let unknownApp = Code("unknown_app")
        /// The input comes from an environment its app is not configured to accept.
        public static let environmentNotAccepted = Code("environment_not_accepted")
        /// A receipt is for another app than the request's `bundle_id` names.
        public static let bundleMismatch = Code("bundle_id_mismatch")
        /// Under the `keep` policy another user already owns the chain.
        public static let linkConflict = Code("link_conflict")
        /// verifyReceipt answered with a status that means the receipt is bad.
        public static let invalidReceipt = Code("invalid_receipt")
        /// verifyReceipt refused the shared secret the server sent (status 21004): the server's
        /// configuration is wrong, not the client's receipt.
        public static let sharedSecretRejected = Code("shared_secret_rejected")
        /// verifyReceipt refused the default shared secret and the request named no app: with several
        /// apps configured, the client must say which app the receipt is for.
        public static let bundleIdRequired = Code("bundle_id_required")
        /// A manual grant names an entitlement no configured product grants.
        public static let unknownEntitlement = Code("unknown_entitlement")
        /// A revoke names a grant the user does not have.
        public static let unknownGrant = Code("unknown_grant")
        /// A revoke names a grant that has already ended, so revoking it would change nothing.
        public static let grantEnded = Code("grant_ended")
        /// No receipt validator is configured.
        public static let receiptValidationUnavailable = Code("receipt_validation_unavailable")
        /// A stored event this build cannot decode (written by hand, or by a build with another
        /// format): the store's content, not the request's, so the message names the event.
        public static let unreadableEvent = Code("unreadable_event")
    }
}
