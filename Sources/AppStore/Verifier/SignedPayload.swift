import Foundation

/// What the verifier needs to know about a JWS payload type: its effective time and its app and environment claims.
///
/// Internal: the public entry points are the typed `verify…` methods of ``SignedDataVerifier``.
protocol SignedPayload: Decodable, Sendable {
    /// Which of Apple's payloads this is.
    static var payloadKind: SignedPayloadKind { get }
    /// The instant the chain must be valid at (`signedDate`, or `receiptCreationDate` for an AppTransaction).
    var effectiveDate: AppStoreDate? { get }
    /// The environment the payload claims.
    var claimedEnvironment: AppStoreEnvironment? { get }
    /// The bundle id the payload claims (`nil` for renewal info, which has none).
    var claimedBundleId: String? { get }
    /// The app Apple id the payload claims, if the payload type carries one.
    var claimedAppAppleId: Int64? { get }
    /// Whether the payload has a field only its kind has (``SignedPayloadKind/markers``); one that
    /// lacks it may be another kind of payload, decoded as this one with their shared fields.
    var hasKindMarker: Bool { get }
    /// Reads the payload with `JSONScanner`, throwing `Unexpected` for text it leaves to `JSONDecoder`.
    /// When it returns, the value equals what `JSONDecoder` decodes from the same text.
    static func scan(_ scanner: inout JSONScanner) throws(JSONScanner.Unexpected) -> Self
}

extension SignedPayload {
    /// A short name for error messages (`transaction`, `renewal info`, ...).
    static var kind: String { payloadKind.rawValue }

    /// No fast path: every payload of this type is decoded by `JSONDecoder`.
    static func scan(_ scanner: inout JSONScanner) throws(JSONScanner.Unexpected) -> Self {
        throw JSONScanner.Unexpected()
    }

    /// The payload read by ``scan(_:)``, or nil when `JSONDecoder` must decode it (an unusual shape,
    /// or text that is not JSON: its errors come from `JSONDecoder`).
    static func scanned(from json: Data) -> Self? {
        json.withUnsafeBytes { bytes -> Self? in
            var scanner = JSONScanner(bytes)
            guard let payload = try? scan(&scanner), (try? scanner.finish()) != nil else { return nil }
            return payload
        }
    }
}

extension JWSTransactionDecodedPayload: SignedPayload {
    static var payloadKind: SignedPayloadKind { .transaction }
    var effectiveDate: AppStoreDate? { signedDate }
    var claimedEnvironment: AppStoreEnvironment? { environment }
    var claimedBundleId: String? { bundleId }
    var claimedAppAppleId: Int64? { nil }
    var hasKindMarker: Bool { transactionId != nil }
}

extension JWSRenewalInfoDecodedPayload: SignedPayload {
    static var payloadKind: SignedPayloadKind { .renewalInfo }
    var effectiveDate: AppStoreDate? { signedDate }
    var claimedEnvironment: AppStoreEnvironment? { environment }
    var claimedBundleId: String? { nil }
    var claimedAppAppleId: Int64? { nil }
    var hasKindMarker: Bool { autoRenewStatus != nil }
}

extension AppTransactionDecodedPayload: SignedPayload {
    static var payloadKind: SignedPayloadKind { .appTransaction }
    var effectiveDate: AppStoreDate? { receiptCreationDate }
    var claimedEnvironment: AppStoreEnvironment? { receiptType }
    var claimedBundleId: String? { bundleId }
    var claimedAppAppleId: Int64? { appAppleId }
    var hasKindMarker: Bool { receiptType != nil || receiptCreationDate != nil }
}

extension ResponseBodyV2DecodedPayload: SignedPayload {
    static var payloadKind: SignedPayloadKind { .notification }
    var effectiveDate: AppStoreDate? { signedDate }

    var claimedEnvironment: AppStoreEnvironment? {
        if let data { return data.environment }
        if let summary { return summary.environment }
        if let appData { return appData.environment }
        if let externalPurchaseToken {
            // The token has no environment field; Apple prefixes sandbox ids with "SANDBOX".
            guard let id = externalPurchaseToken.externalPurchaseId else { return nil }
            return id.hasPrefix("SANDBOX") ? .sandbox : .production
        }
        return nil
    }

    var claimedBundleId: String? { bundleId }
    var hasKindMarker: Bool { notificationType != nil }

    var claimedAppAppleId: Int64? {
        data?.appAppleId ?? summary?.appAppleId ?? appData?.appAppleId ?? externalPurchaseToken?.appAppleId
    }
}
