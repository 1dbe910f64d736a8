import Crypto
import X509

extension TestPKI {
    /// The curve of a test PKI's root and intermediate keys (the leaf is always P-256, as ES256 requires).
    ///
    /// Apple's root and WWDR intermediate use P-384; `.p384` reproduces the cost of validating
    /// Apple's real chain (benchmarks), `.p256` is faster to generate (unit tests).
    public enum CACurve: Sendable {
        /// P-256 with ECDSA-SHA256 certificate signatures.
        case p256
        /// P-384 with ECDSA-SHA384 certificate signatures, like Apple Root CA - G3 and WWDR G6.
        case p384

        func makeKey() -> Certificate.PrivateKey {
            switch self {
            case .p256: Certificate.PrivateKey(P256.Signing.PrivateKey())
            case .p384: Certificate.PrivateKey(P384.Signing.PrivateKey())
            }
        }

        var signatureAlgorithm: Certificate.SignatureAlgorithm {
            switch self {
            case .p256: .ecdsaWithSHA256
            case .p384: .ecdsaWithSHA384
            }
        }
    }
}
