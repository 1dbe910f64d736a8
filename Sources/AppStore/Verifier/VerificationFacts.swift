import Foundation

/// How a payload was verified: by which leaf certificate, at which instant, in which environment.
///
/// Stored next to the events a payload produces, so an auditor can tell later what was trusted
/// and why (and tell apart the unsigned Xcode/LocalTesting data accepted in development).
public struct VerificationFacts: Hashable, Sendable, Codable {
    /// Uppercase hex SHA-256 of the leaf certificate's DER; `nil` when the payload was not signature-checked.
    public var leafCertificateFingerprint: String?
    /// The instant the chain was validated at: the payload's signed date, or the `now` passed in.
    public var effectiveDate: Date
    /// The environment the payload claims (and that was accepted).
    public var environment: AppStoreEnvironment
    /// `true` when the chain was checked and the bytes are proven Apple's by an ES256 signature (the
    /// payload's own, or for a nested JWS possibly its notification's); `false` for accepted
    /// Xcode/LocalTesting data.
    public var isSignatureVerified: Bool
    /// Whether the chain came from the validated-chain cache (useful in metrics, not in decisions).
    public var usedCachedChain: Bool
    /// `true` for a JWS nested in a V2 notification whose own signature was not checked because the
    /// notification's checked signature covers its bytes (see
    /// ``SignedDataVerifier/Configuration/checksNestedSignatures``).
    public var isCoveredByEnclosingSignature: Bool

    /// Creates facts by value.
    /// - Why: fakes of the verifier in other targets' tests build results without cryptography.
    public init(
        leafCertificateFingerprint: String?,
        effectiveDate: Date,
        environment: AppStoreEnvironment,
        isSignatureVerified: Bool,
        usedCachedChain: Bool = false,
        isCoveredByEnclosingSignature: Bool = false
    ) {
        self.leafCertificateFingerprint = leafCertificateFingerprint
        self.effectiveDate = effectiveDate
        self.environment = environment
        self.isSignatureVerified = isSignatureVerified
        self.usedCachedChain = usedCachedChain
        self.isCoveredByEnclosingSignature = isCoveredByEnclosingSignature
    }
}
