extension AppStoreError {
    /// A stable, snake_case error code.
    ///
    /// A struct rather than an enum so that new codes are not a breaking change; compare with `==`
    /// against the static members. The ``rawValue`` strings are part of the public contract (they
    /// are returned to API clients and printed by `subledger verify`) and never change.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The snake_case code string.
        public var rawValue: String

        /// Wraps a code string; prefer the static members.
        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        /// The code string itself.
        public var description: String { rawValue }

        // MARK: Input shape

        /// The input is not a compact JWS / JSON document of the expected shape.
        public static let invalidFormat = Code(rawValue: "invalid_format")
        /// A notification body is not a JSON object with a `signedPayload` string (what Apple POSTs).
        public static let malformedBody = Code(rawValue: "malformed_body")
        /// The input is larger than the configured maximum and was not parsed.
        public static let inputTooLarge = Code(rawValue: "input_too_large")
        /// The JWS payload is JSON but does not match Apple's documented payload.
        public static let invalidPayload = Code(rawValue: "invalid_payload")

        // MARK: JWS header and certificate chain

        /// The JWS header `alg` is not `ES256`.
        public static let unsupportedAlgorithm = Code(rawValue: "unsupported_algorithm")
        /// The `x5c` header does not hold exactly three certificates.
        public static let invalidChainLength = Code(rawValue: "invalid_chain_length")
        /// A certificate in `x5c` (or a configured root) is not valid base64 DER X.509, or has an unusable key.
        public static let invalidCertificate = Code(rawValue: "invalid_certificate")
        /// The leaf and intermediate do not chain to any configured trust anchor.
        public static let untrustedChain = Code(rawValue: "untrusted_chain")
        /// The leaf or the intermediate lacks Apple's marker extension.
        public static let missingAppleExtension = Code(rawValue: "missing_apple_extension")
        /// A certificate of the chain is not valid at the effective time (the payload's `signedDate`).
        public static let certificateExpired = Code(rawValue: "certificate_expired")
        /// A certificate was reported revoked by the configured revocation checker.
        public static let certificateRevoked = Code(rawValue: "certificate_revoked")
        /// The ES256 signature does not verify with the leaf certificate's key.
        public static let invalidSignature = Code(rawValue: "invalid_signature")

        // MARK: Payload policy

        /// The payload's bundle id is not one of the configured apps.
        public static let unknownApp = Code(rawValue: "unknown_app")
        /// The payload's environment is not accepted for the app.
        public static let environmentNotAccepted = Code(rawValue: "environment_not_accepted")
        /// The payload's `appAppleId` differs from the configured one (or is missing in Production).
        public static let appAppleIdMismatch = Code(rawValue: "app_apple_id_mismatch")
        /// A nested JWS disagrees with its enclosing notification (bundle id or environment).
        public static let payloadMismatch = Code(rawValue: "payload_mismatch")

        // MARK: Configuration and trust anchors

        /// The verifier or client configuration is unusable.
        public static let invalidConfiguration = Code(rawValue: "invalid_configuration")
        /// A trust anchor file could not be read or parsed, or the bundled root failed its fingerprint check.
        public static let invalidTrustAnchor = Code(rawValue: "invalid_trust_anchor")

        // MARK: Legacy receipts

        /// The input is empty (no receipt at all).
        public static let emptyReceipt = Code(rawValue: "empty_receipt")
        /// The input is not a PKCS#7 App Store receipt (a JWS pasted by mistake, random bytes...).
        public static let notAReceipt = Code(rawValue: "not_a_receipt")
        /// The input is a PKCS#7 container but its receipt payload is malformed.
        public static let malformedReceipt = Code(rawValue: "malformed_receipt")

        // MARK: verifyReceipt

        /// Apple's verifyReceipt endpoint could not be reached or kept failing after the retries.
        public static let appleUnavailable = Code(rawValue: "apple_unavailable")
        /// verifyReceipt answered with something that is not the documented JSON, or with an answer
        /// that says nothing of the receipt: status 21000, or a 21007/21008 the one redirect does not settle.
        public static let invalidResponse = Code(rawValue: "invalid_response")
    }
}
