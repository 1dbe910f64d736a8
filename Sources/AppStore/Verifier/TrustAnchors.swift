import Crypto
import Foundation
import SwiftASN1
import X509

/// Loads the certificates a ``SignedDataVerifier`` trusts: the bundled Apple Root CA - G3 and extra roots from files.
///
/// The chain in a JWS `x5c` is never trusted by itself; it must end at one of these. A test chain
/// is only trusted when its root is loaded here explicitly.
public enum TrustAnchors {
    /// The SHA-256 fingerprint of Apple Root CA - G3, the anchor of every App Store JWS.
    /// - Why: asserted at load so a tampered or swapped resource file fails closed.
    public static let appleRootCAG3Fingerprint = "63343ABFB89A6A03EBB57E9B3F5FA7BE7C4F5C756F3017B3A8C488C3653E9179"

    /// Apple Root CA - G3, read from this module's resources and checked against ``appleRootCAG3Fingerprint``.
    /// - Why: the default trust anchor; throws `invalid_trust_anchor` if the resource is missing or altered.
    public static func appleRootCAG3() throws -> Certificate {
        try bundledG3.get()
    }

    private static let bundledG3: Result<Certificate, AppStoreError> = Result {
        guard let url = Bundle.module.url(forResource: "AppleRootCA-G3", withExtension: "cer") else {
            throw AppStoreError(.invalidTrustAnchor, "the bundled AppleRootCA-G3.cer resource is missing")
        }
        let bytes: Data
        do {
            bytes = try Data(contentsOf: url)
        } catch {
            throw AppStoreError(.invalidTrustAnchor, "cannot read the bundled AppleRootCA-G3.cer: \(error)")
        }
        return try certificate(der: Array(bytes), expectingFingerprint: appleRootCAG3Fingerprint)
    }.mapError { $0 as? AppStoreError ?? AppStoreError(.invalidTrustAnchor, "\($0)") }

    /// Parses one DER certificate and checks its SHA-256 fingerprint (hex, any case, `:` allowed).
    /// - Why: pin a root by fingerprint when it comes from a file the operator supplied.
    public static func certificate(der: [UInt8], expectingFingerprint expected: String) throws -> Certificate {
        let actual = fingerprint(ofDER: der)
        let normalized = expected.replacingOccurrences(of: ":", with: "").uppercased()
        guard actual == normalized else {
            throw AppStoreError(
                .invalidTrustAnchor,
                "trust anchor fingerprint is \(actual), expected \(normalized)"
            )
        }
        do {
            return try Certificate(derEncoded: der)
        } catch {
            throw AppStoreError(.invalidTrustAnchor, "trust anchor is not a DER X.509 certificate: \(LibraryErrorText.describe(error))")
        }
    }

    /// Parses certificates from DER bytes or PEM text (one or more `CERTIFICATE` blocks).
    /// - Why: operators add roots (e.g. a test CA in staging) from files in either format.
    public static func certificates(fromFileContents contents: [UInt8]) throws -> [Certificate] {
        let text = String(decoding: contents, as: UTF8.self)
        if text.contains("-----BEGIN") {
            do {
                let documents = try PEMDocument.parseMultiple(pemString: text)
                let certificates = try documents
                    .filter { $0.discriminator == "CERTIFICATE" }
                    .map { try Certificate(derEncoded: $0.derBytes) }
                guard !certificates.isEmpty else {
                    throw AppStoreError(.invalidTrustAnchor, "PEM holds no CERTIFICATE block")
                }
                return certificates
            } catch let error as AppStoreError {
                throw error
            } catch {
                throw AppStoreError(.invalidTrustAnchor, "not a PEM certificate: \(LibraryErrorText.describe(error))")
            }
        }
        do {
            return [try Certificate(derEncoded: contents)]
        } catch {
            throw AppStoreError(.invalidTrustAnchor, "not a DER or PEM certificate: \(LibraryErrorText.describe(error))")
        }
    }

    /// Reads and parses a DER or PEM certificate file.
    /// - Why: the `--root FILE` and `appstore.roots` configuration entry point.
    public static func certificates(fromFile path: String) throws -> [Certificate] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw AppStoreError(.invalidTrustAnchor, "cannot read trust anchor file \(path): it does not exist or is not readable")
        }
        return try certificates(fromFileContents: Array(data))
    }

    /// The uppercase hex SHA-256 of DER bytes, the form used for fingerprints throughout this module.
    /// - Why: one spelling for logs, pins and ``VerificationFacts/leafCertificateFingerprint``.
    public static func fingerprint(ofDER der: some DataProtocol) -> String {
        hex(SHA256.hash(data: der))
    }

    static func hex(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789ABCDEF".utf8)
        var output = [UInt8]()
        for byte in bytes {
            output.append(digits[Int(byte >> 4)])
            output.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: output, as: UTF8.self)
    }
}
