@_spi(FixedExpiryValidationTime) import X509
import Crypto
import Foundation
import SwiftASN1

/// Validates an `x5c` leaf and intermediate against the configured roots at an effective time.
///
/// The checks run cheapest first so each failure gets its precise code: parse
/// (`invalid_certificate`), Apple markers (`missing_apple_extension`), validity windows
/// (`certificate_expired`), then RFC 5280 path building to a configured root with
/// swift-certificates (`untrusted_chain`). Successful pairs go to the ``ValidatedChainCache``.
struct ChainValidator: Sendable {
    let roots: CertificateStore
    let cache: ValidatedChainCache?

    /// The validated chain for the `x5c` leaf/intermediate in `key` at `effectiveDate`, and whether it came from the cache.
    func validate(_ key: ValidatedChainCache.Key, at effectiveDate: Date) async throws -> (ValidatedChain, cached: Bool) {
        if let cache, let chain = cache.lookup(key) {
            guard chain.isValid(at: effectiveDate) else {
                throw AppStoreError(
                    .certificateExpired,
                    "certificate chain is valid from \(chain.notValidBefore) to \(chain.notValidAfter), not at \(effectiveDate)"
                )
            }
            return (chain, true)
        }
        let chain = try await buildChain(leafText: key.leaf, intermediateText: key.intermediate, at: effectiveDate)
        cache?.insert(chain, for: key)
        return (chain, false)
    }

    private func buildChain(leafText: String, intermediateText: String, at effectiveDate: Date) async throws -> ValidatedChain {
        let (leaf, leafDER) = try parse(leafText, role: "leaf")
        let (intermediate, _) = try parse(intermediateText, role: "intermediate")
        // Step 7 with the parsing, before the markers and dates, as appstore.md's table orders them.
        guard P256.Signing.PublicKey(leaf.publicKey) != nil else {
            throw AppStoreError(.invalidCertificate, "leaf certificate key is not P-256, cannot verify ES256")
        }

        guard leaf.extensions[oid: AppleMarkerExtensionPolicy.leafMarker] != nil else {
            throw AppStoreError(
                .missingAppleExtension,
                "leaf certificate lacks Apple extension \(AppleMarkerExtensionPolicy.leafMarker)"
            )
        }
        guard intermediate.extensions[oid: AppleMarkerExtensionPolicy.intermediateMarker] != nil else {
            throw AppStoreError(
                .missingAppleExtension,
                "intermediate certificate lacks Apple extension \(AppleMarkerExtensionPolicy.intermediateMarker)"
            )
        }
        for (certificate, role) in [(leaf, "leaf"), (intermediate, "intermediate")] {
            guard certificate.notValidBefore <= effectiveDate, effectiveDate <= certificate.notValidAfter else {
                throw AppStoreError(
                    .certificateExpired,
                    "\(role) certificate is valid from \(certificate.notValidBefore) to \(certificate.notValidAfter), not at \(effectiveDate)"
                )
            }
        }

        var verifier = Verifier(rootCertificates: roots) {
            RFC5280Policy(fixedExpiryValidationTime: effectiveDate)
            AppleMarkerExtensionPolicy()
        }
        let result = await verifier.validate(leaf: leaf, intermediates: CertificateStore([intermediate]))
        switch result {
        case .validCertificate(let chain):
            let certificates = Array(chain)
            return ValidatedChain(
                leafPublicKey: leaf.publicKey,
                notValidBefore: certificates.map(\.notValidBefore).max() ?? leaf.notValidBefore,
                notValidAfter: certificates.map(\.notValidAfter).min() ?? leaf.notValidAfter,
                leafFingerprint: TrustAnchors.fingerprint(ofDER: leafDER),
                leaf: leaf,
                intermediate: intermediate
            )
        case .couldNotValidate(let failures):
            let reasons = failures.map { $0.policyFailureReason.description }
            let detail = reasons.isEmpty ? "no path from the leaf to a configured root" : reasons.joined(separator: "; ")
            throw AppStoreError(.untrustedChain, "certificate chain is not trusted: \(detail)")
        }
    }

    private func parse(_ text: String, role: String) throws -> (Certificate, [UInt8]) {
        // One text per certificate: the cache is keyed by the text, so other spellings of Apple's
        // public certificates would each miss it, be validated and evict the chains in use.
        guard Base64.isPaddedStandard(text), let der = Base64.decode(text) else {
            throw AppStoreError(.invalidCertificate, "x5c \(role) certificate is not standard base64 with padding (RFC 7515, section 4.1.6)")
        }
        do {
            return (try Certificate(derEncoded: der), der)
        } catch {
            throw AppStoreError(.invalidCertificate, "x5c \(role) certificate is not DER X.509: \(LibraryErrorText.describe(error))")
        }
    }
}
