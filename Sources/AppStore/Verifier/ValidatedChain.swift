import Crypto
import Foundation
import X509

/// A leaf/intermediate pair already proven to chain to a configured root with Apple's markers.
///
/// What the chain cache stores: everything needed to re-accept the same pair at another
/// effective time without rebuilding the path (the validity window is the intersection of the
/// leaf's, the intermediate's and the root's).
struct ValidatedChain: Sendable {
    /// The leaf's key, known to be P-256; it verifies the JWS signature.
    /// (Kept as `Certificate.PublicKey`, which is `Sendable`; `P256.Signing.PublicKey` is not on Linux.)
    let leafPublicKey: Certificate.PublicKey
    /// The latest `notValidBefore` of the chain.
    let notValidBefore: Date
    /// The earliest `notValidAfter` of the chain.
    let notValidAfter: Date
    /// Uppercase hex SHA-256 of the leaf DER.
    let leafFingerprint: String
    /// The parsed leaf, for the revocation seam.
    let leaf: Certificate
    /// The parsed intermediate, for the revocation seam.
    let intermediate: Certificate

    /// Whether `signature` (raw `r || s`) over `input` verifies with the leaf's key.
    func isValidSignature(_ signature: [UInt8], for input: UnsafeRawBufferPointer) -> Bool {
        guard signature.count == 64,
            let key = P256.Signing.PublicKey(leafPublicKey),
            let decoded = try? P256.Signing.ECDSASignature(rawRepresentation: signature)
        else { return false }
        return key.isValidSignature(decoded, for: input)
    }

    /// Whether every certificate of the chain is valid at `date`.
    func isValid(at date: Date) -> Bool {
        notValidBefore <= date && date <= notValidAfter
    }
}
