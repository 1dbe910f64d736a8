import AppStore
import Crypto
import Foundation
import SwiftASN1
import X509

/// A throwaway App Store-like PKI generated at runtime: a P-256 root, an intermediate with Apple's
/// WWDR marker extension and a leaf with the receipt-signing marker, plus a minter for JWS signed by that leaf.
///
/// Lets tests and benchmarks of any target produce transactions, renewal infos and V2
/// notifications that pass the real ``SignedDataVerifier`` checks, by trusting ``root`` (never
/// trusted by default). Variants without the marker extensions or with other validity windows
/// exercise the rejection paths.
public struct TestPKI: Sendable {
    /// The self-signed root; pass it to ``verifierConfiguration(apps:chainCacheCapacity:)`` or a `Configuration`.
    public let root: Certificate
    /// The intermediate CA (path length 0).
    public let intermediate: Certificate
    /// The leaf that signs the minted JWS.
    public let leaf: Certificate
    /// The root's DER bytes, e.g. to export it to a file.
    public let rootDER: [UInt8]
    /// The intermediate's DER bytes.
    public let intermediateDER: [UInt8]
    /// The leaf's DER bytes.
    public let leafDER: [UInt8]
    /// The leaf's private key bytes (P-256 scalar). Kept as bytes because `P256.Signing.PrivateKey` is not `Sendable` on Linux.
    public let leafKeyBytes: Data

    /// The leaf's private key; JWS minted by ``sign(_:)`` use it.
    public var leafKey: P256.Signing.PrivateKey {
        get throws { try P256.Signing.PrivateKey(rawRepresentation: leafKeyBytes) }
    }

    /// The default start of validity of generated certificates: 2020-01-01T00:00:00Z.
    public static let defaultNotValidBefore = Date(timeIntervalSince1970: 1_577_836_800)
    /// The default end of validity of generated certificates: 2045-01-01T00:00:00Z.
    public static let defaultNotValidAfter = Date(timeIntervalSince1970: 2_366_841_600)

    /// Generates a fresh PKI (three new P-256 keys).
    /// - Parameters:
    ///   - notValidBefore: start of validity of all three certificates (fixed default, so tests never read the clock).
    ///   - notValidAfter: end of validity of all three certificates.
    ///   - leafNotValidAfter: a shorter end of validity for the leaf only, to test expiry at the effective time.
    ///   - leafHasAppleMarker: whether the leaf carries OID 1.2.840.113635.100.6.11.1.
    ///   - intermediateHasAppleMarker: whether the intermediate carries OID 1.2.840.113635.100.6.2.1.
    ///   - name: a label put in the subject names, to tell several PKIs apart.
    ///   - caCurve: the curve of the root and intermediate keys; `.p384` mirrors Apple's chain (and its cost).
    ///   - leafCertificateKey: a key for the leaf certificate to name in place of the signing key's
    ///     (one not on P-256 tests the verifier's key check; signatures then cannot verify).
    public init(
        notValidBefore: Date = TestPKI.defaultNotValidBefore,
        notValidAfter: Date = TestPKI.defaultNotValidAfter,
        leafNotValidAfter: Date? = nil,
        leafHasAppleMarker: Bool = true,
        intermediateHasAppleMarker: Bool = true,
        name: String = "subledger test",
        caCurve: CACurve = .p256,
        leafCertificateKey: Certificate.PublicKey? = nil
    ) throws {
        let rootKey = caCurve.makeKey()
        let intermediateKey = caCurve.makeKey()
        let leafKey = P256.Signing.PrivateKey()
        let leafPublicKey = leafCertificateKey ?? Certificate.PublicKey(leafKey.publicKey)
        let rootSKI = SubjectKeyIdentifier(hash: rootKey.publicKey)
        let intermediateSKI = SubjectKeyIdentifier(hash: intermediateKey.publicKey)
        let rootName = try DistinguishedName {
            CountryName("US")
            OrganizationName(name)
            CommonName("\(name) Root CA")
        }
        let intermediateName = try DistinguishedName {
            CountryName("US")
            OrganizationName(name)
            CommonName("\(name) Intermediate CA")
        }
        let leafName = try DistinguishedName {
            CountryName("US")
            OrganizationName(name)
            CommonName("\(name) Receipt Signing")
        }

        let root = try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: rootKey.publicKey,
            notValidBefore: notValidBefore,
            notValidAfter: notValidAfter,
            issuer: rootName,
            subject: rootName,
            signatureAlgorithm: caCurve.signatureAlgorithm,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
                rootSKI
            },
            issuerPrivateKey: rootKey
        )
        let intermediate = try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: intermediateKey.publicKey,
            notValidBefore: notValidBefore,
            notValidAfter: notValidAfter,
            issuer: rootName,
            subject: intermediateName,
            signatureAlgorithm: caCurve.signatureAlgorithm,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
                intermediateSKI
                AuthorityKeyIdentifier(keyIdentifier: rootSKI.keyIdentifier)
                if intermediateHasAppleMarker {
                    Self.marker(AppleMarkerExtensionPolicy.intermediateMarker)
                } else {
                    // Apple's own invalid-OID test intermediate carries .2.2 instead of .2.1.
                    Self.marker([1, 2, 840, 113635, 100, 6, 2, 2])
                }
            },
            issuerPrivateKey: rootKey
        )
        let leaf = try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: leafPublicKey,
            notValidBefore: notValidBefore,
            notValidAfter: leafNotValidAfter ?? notValidAfter,
            issuer: intermediateName,
            subject: leafName,
            signatureAlgorithm: caCurve.signatureAlgorithm,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                SubjectKeyIdentifier(hash: leafPublicKey)
                AuthorityKeyIdentifier(keyIdentifier: intermediateSKI.keyIdentifier)
                if leafHasAppleMarker {
                    Self.marker(AppleMarkerExtensionPolicy.leafMarker)
                } else {
                    Self.marker([1, 2, 840, 113635, 100, 6, 11, 2])
                }
            },
            issuerPrivateKey: intermediateKey
        )
        self.root = root
        self.intermediate = intermediate
        self.leaf = leaf
        self.rootDER = try Self.der(root)
        self.intermediateDER = try Self.der(intermediate)
        self.leafDER = try Self.der(leaf)
        self.leafKeyBytes = leafKey.rawRepresentation
    }

    /// The `x5c` header value: leaf, intermediate, root, as standard base64 DER.
    public var x5c: [String] {
        [leafDER, intermediateDER, rootDER].map { Data($0).base64EncodedString() }
    }

    /// The uppercase hex SHA-256 of the leaf, as reported in ``VerificationFacts/leafCertificateFingerprint``.
    public var leafFingerprint: String {
        TrustAnchors.fingerprint(ofDER: leafDER)
    }

    /// The root as a PEM document, e.g. for `subledger verify --root FILE`.
    public var rootPEM: String {
        PEMDocument(type: "CERTIFICATE", derBytes: rootDER).pemString
    }

    private static func marker(_ oid: ASN1ObjectIdentifier) -> Certificate.Extension {
        // Apple's markers carry an ASN.1 NULL as their value.
        Certificate.Extension(oid: oid, critical: false, value: [0x05, 0x00])
    }

    private static func der(_ certificate: Certificate) throws -> [UInt8] {
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        return serializer.serializedBytes
    }
}
