import SwiftASN1
import X509

/// A swift-certificates `VerifierPolicy` requiring Apple's marker extensions on an App Store signing chain.
///
/// Chain building proves who signed what; this policy proves the certificates were issued *for*
/// App Store data: the leaf must carry OID 1.2.840.113635.100.6.11.1 (receipt signing) and the
/// intermediate 1.2.840.113635.100.6.2.1 (WWDR CA). Without it, any certificate Apple's root ever
/// issued (e.g. a TLS server certificate) could sign a transaction. The chain must be exactly
/// leaf, intermediate, root.
public struct AppleMarkerExtensionPolicy: VerifierPolicy, Sendable {
    /// OID 1.2.840.113635.100.6.11.1, carried by App Store receipt-signing leaf certificates.
    public static let leafMarker: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 6, 11, 1]
    /// OID 1.2.840.113635.100.6.2.1, carried by Apple's WWDR intermediate certificates.
    public static let intermediateMarker: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 6, 2, 1]

    /// The markers are enforced here, so a certificate marking them critical is still acceptable.
    public let verifyingCriticalExtensions: [ASN1ObjectIdentifier] = [Self.leafMarker, Self.intermediateMarker]

    /// Creates the policy; it has no options.
    /// - Why: combined with `RFC5280Policy` in the verifier's policy builder.
    public init() {}

    /// Accepts only a three-certificate chain whose leaf and intermediate carry their markers.
    public func chainMeetsPolicyRequirements(chain: UnverifiedCertificateChain) -> PolicyEvaluationResult {
        guard chain.count == 3 else {
            return .failsToMeetPolicy(reason: "App Store chains are leaf, intermediate, root; got \(chain.count) certificates")
        }
        guard chain[0].extensions[oid: Self.leafMarker] != nil else {
            return .failsToMeetPolicy(reason: "leaf certificate lacks Apple extension \(Self.leafMarker)")
        }
        guard chain[1].extensions[oid: Self.intermediateMarker] != nil else {
            return .failsToMeetPolicy(reason: "intermediate certificate lacks Apple extension \(Self.intermediateMarker)")
        }
        return .meetsPolicy
    }
}
