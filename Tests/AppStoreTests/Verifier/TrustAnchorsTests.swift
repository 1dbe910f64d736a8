import AppStore
import AppStoreTesting
import Foundation
import Testing

/// The bundled Apple Root CA - G3 and operator-supplied roots.
@Suite struct TrustAnchorsTests {
    @Test func bundledG3MatchesItsPinnedFingerprint() throws {
        let root = try TrustAnchors.appleRootCAG3()
        #expect(root.subject.description.contains("Apple Root CA - G3"))
        #expect(TrustAnchors.appleRootCAG3Fingerprint == "63343ABFB89A6A03EBB57E9B3F5FA7BE7C4F5C756F3017B3A8C488C3653E9179")
    }

    @Test func bundledG3IsTheSharedVectorG3() throws {
        let fixture = try Fixture.data("certs/AppleRootCA-G3.cer")
        #expect(TrustAnchors.fingerprint(ofDER: fixture) == TrustAnchors.appleRootCAG3Fingerprint)
    }

    @Test func defaultConfigurationTrustsOnlyG3() throws {
        let configuration = try SignedDataVerifier.Configuration.appleDefault(apps: [])
        #expect(configuration.trustedRoots == [try TrustAnchors.appleRootCAG3()])
    }

    @Test func certificateWithAnotherFingerprintIsRefused() throws {
        let g2 = Array(try Fixture.data("certs/AppleRootCA-G2.cer"))
        #expect { _ = try TrustAnchors.certificate(der: g2, expectingFingerprint: TrustAnchors.appleRootCAG3Fingerprint) } throws: {
            ($0 as? AppStoreError)?.code == .invalidTrustAnchor
        }
        let pinned = try TrustAnchors.certificate(der: g2, expectingFingerprint: "C2:B9:B0:42:DD:57:83:0E:7D:11:7D:AC:55:AC:8A:E1:94:07:D3:8E:41:D8:8F:32:15:BC:3A:89:04:44:A0:50")
        #expect(pinned.subject.description.contains("G2"))
    }

    @Test func rootsLoadFromDERAndPEMFiles() throws {
        let der = try TrustAnchors.certificates(fromFile: Fixture.url("test_pki/testCA.der").path)
        let pem = try TrustAnchors.certificates(fromFile: Fixture.url("test_pki/testCA.pem").path)
        #expect(der.count == 1)
        #expect(der == pem)
    }

    @Test func pemBundleWithSeveralCertificatesLoadsThemAll() throws {
        let one = try TestPKI(name: "one")
        let two = try TestPKI(name: "two")
        let bundle = one.rootPEM + "\n" + two.rootPEM
        let roots = try TrustAnchors.certificates(fromFileContents: Array(bundle.utf8))
        #expect(roots == [one.root, two.root])
    }

    @Test(arguments: ["", "hello", "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"])
    func nonCertificateFileIsAnInvalidTrustAnchor(contents: String) {
        #expect { _ = try TrustAnchors.certificates(fromFileContents: Array(contents.utf8)) } throws: {
            ($0 as? AppStoreError)?.code == .invalidTrustAnchor
        }
    }

    @Test func missingFileIsAnInvalidTrustAnchor() {
        #expect { _ = try TrustAnchors.certificates(fromFile: "/nonexistent/root.pem") } throws: {
            ($0 as? AppStoreError)?.code == .invalidTrustAnchor
        }
    }

    @Test func errorCodesAreStableStrings() {
        let codes: [AppStoreError.Code] = [
            .invalidFormat, .unsupportedAlgorithm, .invalidChainLength, .invalidCertificate, .untrustedChain,
            .missingAppleExtension, .certificateExpired, .invalidSignature, .unknownApp, .environmentNotAccepted,
            .appAppleIdMismatch, .malformedBody,
        ]
        #expect(codes.map(\.rawValue) == [
            "invalid_format", "unsupported_algorithm", "invalid_chain_length", "invalid_certificate", "untrusted_chain",
            "missing_apple_extension", "certificate_expired", "invalid_signature", "unknown_app", "environment_not_accepted",
            "app_apple_id_mismatch", "malformed_body",
        ])
        #expect(AppStoreError(.unknownApp, "x").description == "unknown_app: x")
    }
}
