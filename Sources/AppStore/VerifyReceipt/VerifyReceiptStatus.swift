/// The `status` codes of a verifyReceipt response that drive the client's behaviour.
///
/// Apple documents 0 (valid) and 21000–21199; the ones the client reacts to, or an error detail
/// explains (`meaning(_:)`), are named.
public enum VerifyReceiptStatus {
    /// The receipt is valid.
    public static let valid = 0
    /// The request did not reach Apple as a POST of verifyReceipt JSON (a redirect or a proxy on the
    /// way changed it): nothing about the receipt.
    public static let requestNotPosted = 21000
    /// The receipt data was malformed or the service was temporarily unable to read it (retried).
    public static let malformedOrTemporarilyUnreadable = 21002
    /// The receipt could not be authenticated: not one Apple issued, or changed since.
    public static let receiptNotAuthenticated = 21003
    /// The shared secret sent does not match the app's: the sender's configuration, not the receipt.
    public static let sharedSecretMismatch = 21004
    /// The receipt server was temporarily unable to provide the receipt (retried).
    public static let serverUnavailable = 21005
    /// The subscription has expired; the response still holds the receipt.
    public static let subscriptionExpired = 21006
    /// A sandbox receipt was sent to production: retry against the sandbox URL.
    public static let sandboxReceiptSentToProduction = 21007
    /// A production receipt was sent to sandbox. The client asks production first, so this answer
    /// means the URLs are not Apple's two environments.
    public static let productionReceiptSentToSandbox = 21008
    /// Internal data access error (retried).
    public static let internalDataAccessError = 21009

    /// The user account cannot be found or has been deleted.
    public static let accountNotFound = 21010

    /// Internal data access errors, for which Apple's `is-retryable` says whether to retry.
    public static let internalDataAccessErrors = 21100...21199

    /// What `status` means, in a few words for an error detail; nil for one Apple does not document.
    public static func meaning(_ status: Int) -> String? {
        switch status {
        case valid: "the receipt is valid"
        case requestNotPosted: "the request did not reach Apple as a POST of verifyReceipt JSON"
        case malformedOrTemporarilyUnreadable: "the receipt data is malformed, or Apple could not read it for now"
        case receiptNotAuthenticated: "the receipt could not be authenticated: Apple did not issue it, or it was changed"
        case sharedSecretMismatch: "the shared secret does not match the app's"
        case serverUnavailable: "Apple's receipt server could not answer for now"
        case subscriptionExpired: "the subscription has expired"
        case sandboxReceiptSentToProduction: "a sandbox receipt was sent to production"
        case productionReceiptSentToSandbox: "a production receipt was sent to sandbox"
        case internalDataAccessError: "Apple had an internal data access error"
        case accountNotFound: "the user account cannot be found or has been deleted"
        case internalDataAccessErrors: "Apple had an internal data access error"
        default: nil
        }
    }

    /// Whether `status` names the environment a receipt belongs to rather than judging the receipt:
    /// one left after the client's redirect is reported as `invalid_response`, not as the answer.
    public static func isEnvironmentRedirect(_ status: Int) -> Bool {
        status == sandboxReceiptSentToProduction || status == productionReceiptSentToSandbox
    }

    /// Whether `status` is one the client retries against the same URL.
    public static func isTransient(_ status: Int) -> Bool {
        status == malformedOrTemporarilyUnreadable || status == serverUnavailable || status == internalDataAccessError
    }

    /// Whether an answer with `status` and `is-retryable` is retried: the transient statuses, any
    /// error Apple marks retryable, and an internal data access error Apple does not mark at all
    /// (Apple's fault, so not for the caller to read as a bad receipt); only an explicit
    /// `is-retryable: false` ends the retries of those.
    public static func isRetried(_ status: Int, isRetryable: Bool?) -> Bool {
        guard status != valid else { return false }
        if isTransient(status) || isRetryable == true { return true }
        return internalDataAccessErrors.contains(status) && isRetryable == nil
    }
}
