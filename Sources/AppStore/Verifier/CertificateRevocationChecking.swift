import Foundation
import X509

/// A seam for online revocation checks (OCSP) of a validated App Store signing chain.
///
/// Not implemented by this library: offline verification at the payload's `signedDate` is what
/// Apple's own libraries do by default, and an OCSP round trip per notification would dominate
/// the cost of verification. An implementation would query the OCSP responder named in the
/// leaf's and intermediate's Authority Information Access extension, cache responses until their
/// `nextUpdate`, and throw ``AppStoreError`` with code ``AppStoreError/Code/certificateRevoked``.
/// When a checker is configured it runs on every verification (cache hit or not), after the
/// chain is known to be valid and before the signature check.
public protocol CertificateRevocationChecking: Sendable {
    /// Throws if `leaf` or `intermediate` is revoked as of `effectiveDate`.
    /// - Why: called by ``SignedDataVerifier`` once the chain to a trusted root is established.
    func checkRevocation(leaf: Certificate, intermediate: Certificate, effectiveDate: Date) async throws
}
