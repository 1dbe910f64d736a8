import AppStore
import Crypto
import Foundation
import Testing
import X509

/// Apple's published test CA, intermediate and leaf (with their keys), and Apple's real production
/// chain, exercising the chain rules with the same certificates Apple's libraries test with.
@Suite struct AppleTestPKIChainTests {
    /// 2025-11-01T02:09:35Z, the effective date of Apple's chain tests.
    static let appleEffectiveDate: Int64 = 1_761_962_975_000
    /// 2042-04-12, after every test certificate expired.
    static let afterExpiry: Int64 = 2_280_946_846_000

    struct Material {
        let testCA: [UInt8]
        let intermediate: [UInt8]
        let leaf: [UInt8]
        let invalidOIDIntermediate: [UInt8]
        let leafOfInvalidIntermediate: [UInt8]
        let invalidOIDLeaf: [UInt8]
        let leafKey: P256.Signing.PrivateKey

        init() throws {
            testCA = Array(try Fixture.data("test_pki/testCA.der"))
            intermediate = try JWSBuilder.der(fromPEM: Fixture.text("test_pki/testIntermediate.pem"))
            leaf = try JWSBuilder.der(fromPEM: Fixture.text("test_pki/testLeaf.pem"))
            invalidOIDIntermediate = try JWSBuilder.der(fromPEM: Fixture.text("test_pki/testInvalidOIDIntermediate.pem"))
            leafOfInvalidIntermediate = try JWSBuilder.der(fromPEM: Fixture.text("test_pki/testInvalidIntermediateLeaf.pem"))
            invalidOIDLeaf = try JWSBuilder.der(fromPEM: Fixture.text("test_pki/testInvalidOIDLeaf.pem"))
            leafKey = try P256.Signing.PrivateKey(pemRepresentation: Fixture.text("test_pki/testLeaf.key"))
        }

        func verifier(roots: [Certificate]? = nil) throws -> SignedDataVerifier {
            try SignedDataVerifier(
                configuration: .init(
                    trustedRoots: try roots ?? [Certificate(derEncoded: testCA)],
                    apps: [AppStoreApp(bundleId: "com.example", environments: [.sandbox])]
                )
            )
        }
    }

    static func transaction(signedDate: Int64) -> String {
        "{\"bundleId\":\"com.example\",\"environment\":\"Sandbox\",\"signedDate\":\(signedDate),\"transactionId\":\"1\"}"
    }

    @Test func appleTestChainVerifiesAtAppleEffectiveDate() async throws {
        let m = try Material()
        let jws = try JWSBuilder.make(x5c: [m.leaf, m.intermediate, m.testCA], payload: Self.transaction(signedDate: Self.appleEffectiveDate), key: m.leafKey)
        let result = try await m.verifier().verifyTransaction(jws, now: fixedNow)
        #expect(result.payload.transactionId == "1")
        #expect(result.facts.leafCertificateFingerprint == TrustAnchors.fingerprint(ofDER: m.leaf))
    }

    struct RejectedChain: Sendable, CustomTestStringConvertible {
        let name: String
        let code: String
        let chain: @Sendable (Material) -> [[UInt8]]
        let signedDate: Int64
        var testDescription: String { name }
    }

    static let rejectedChains: [RejectedChain] = [
        RejectedChain(name: "intermediate with OID 6.2.2", code: "missing_apple_extension", chain: { [$0.leafOfInvalidIntermediate, $0.invalidOIDIntermediate, $0.testCA] }, signedDate: appleEffectiveDate),
        RejectedChain(name: "leaf with OID 6.11.2", code: "missing_apple_extension", chain: { [$0.invalidOIDLeaf, $0.intermediate, $0.testCA] }, signedDate: appleEffectiveDate),
        RejectedChain(name: "two-certificate chain", code: "invalid_chain_length", chain: { [$0.leaf, $0.intermediate] }, signedDate: appleEffectiveDate),
        RejectedChain(name: "four-certificate chain", code: "invalid_chain_length", chain: { [$0.leaf, $0.intermediate, $0.testCA, $0.testCA] }, signedDate: appleEffectiveDate),
        RejectedChain(name: "chain checked after it expired", code: "certificate_expired", chain: { [$0.leaf, $0.intermediate, $0.testCA] }, signedDate: afterExpiry),
        RejectedChain(name: "leaf and intermediate swapped", code: "missing_apple_extension", chain: { [$0.intermediate, $0.leaf, $0.testCA] }, signedDate: appleEffectiveDate),
        RejectedChain(name: "garbage certificate", code: "invalid_certificate", chain: { [[0x30, 0x03, 0x02, 0x01, 0x01], $0.intermediate, $0.testCA] }, signedDate: appleEffectiveDate),
    ]

    @Test(arguments: rejectedChains)
    func appleTestChainIsRejected(_ rejected: RejectedChain) async throws {
        let m = try Material()
        let jws = try JWSBuilder.make(x5c: rejected.chain(m), payload: Self.transaction(signedDate: rejected.signedDate), key: m.leafKey)
        let code = await errorCode { _ = try await m.verifier().verifyTransaction(jws, now: fixedNow) }
        #expect(code == rejected.code)
    }

    @Test func appleTestChainIsUntrustedWhenOnlyG3IsTrusted() async throws {
        let m = try Material()
        let jws = try JWSBuilder.make(x5c: [m.leaf, m.intermediate, m.testCA], payload: Self.transaction(signedDate: Self.appleEffectiveDate), key: m.leafKey)
        let code = await errorCode { _ = try await m.verifier(roots: [TrustAnchors.appleRootCAG3()]).verifyTransaction(jws, now: fixedNow) }
        #expect(code == "untrusted_chain")
    }

    @Test func rootInTheMessageIsIgnored() async throws {
        // x5c[2] is a root nobody configured; the chain still anchors on the configured testCA.
        let m = try Material()
        let g3 = Array(try Fixture.data("certs/AppleRootCA-G3.cer"))
        let jws = try JWSBuilder.make(x5c: [m.leaf, m.intermediate, g3], payload: Self.transaction(signedDate: Self.appleEffectiveDate), key: m.leafKey)
        let result = try await m.verifier().verifyTransaction(jws, now: fixedNow)
        #expect(result.facts.isSignatureVerified)
    }

    @Test func selfSignedLeafTrustedOnlyThroughTheMessageIsUntrusted() async throws {
        // An attacker's own root sent in x5c[2] must never be used as the anchor.
        let m = try Material()
        let jws = try JWSBuilder.make(x5c: [m.leaf, m.intermediate, m.testCA], payload: Self.transaction(signedDate: Self.appleEffectiveDate), key: m.leafKey)
        let otherRoot = try AppStoreTestingRoot.make()
        let code = await errorCode { _ = try await m.verifier(roots: [otherRoot]).verifyTransaction(jws, now: fixedNow) }
        #expect(code == "untrusted_chain")
    }

    // MARK: Real Apple production chain (no private key: a valid chain then fails on the signature)

    static func realChain(leaf: String) throws -> [[UInt8]] {
        [
            Array(try Fixture.data("certs/real_apple_chain/\(leaf)")),
            Array(try Fixture.data("certs/real_apple_chain/AppleWWDRCA-G6.der")),
            Array(try Fixture.data("certs/real_apple_chain/AppleRootCA-G3.der")),
        ]
    }

    @Test func realAppleChainIsAcceptedAtAppleEffectiveDateSoOnlyTheForgedSignatureFails() async throws {
        let verifier = try SignedDataVerifier(apps: [AppStoreApp(bundleId: "com.example", environments: [.sandbox])])
        let jws = try JWSBuilder.make(
            x5c: Self.realChain(leaf: "ProdECC_ReceiptSigning_2025-09-19_to_2027-10-13.der"),
            payload: Self.transaction(signedDate: Self.appleEffectiveDate)
        )
        let code = await errorCode { _ = try await verifier.verifyTransaction(jws, now: fixedNow) }
        #expect(code == "invalid_signature")
    }

    @Test func realAppleLeafFrom2021IsExpiredIn2025() async throws {
        let verifier = try SignedDataVerifier(apps: [AppStoreApp(bundleId: "com.example", environments: [.sandbox])])
        let jws = try JWSBuilder.make(
            x5c: Self.realChain(leaf: "ProdECC_ReceiptSigning_2021-08-25_to_2023-09-24.der"),
            payload: Self.transaction(signedDate: 1_735_689_600_000)
        )
        let code = await errorCode { _ = try await verifier.verifyTransaction(jws, now: fixedNow) }
        #expect(code == "certificate_expired")
    }

    @Test func realAppleLeafFrom2021IsValidAtItsOwnTime() async throws {
        let verifier = try SignedDataVerifier(apps: [AppStoreApp(bundleId: "com.example", environments: [.sandbox])])
        let jws = try JWSBuilder.make(
            x5c: Self.realChain(leaf: "ProdECC_ReceiptSigning_2021-08-25_to_2023-09-24.der"),
            payload: Self.transaction(signedDate: 1_681_312_846_000)
        )
        let code = await errorCode { _ = try await verifier.verifyTransaction(jws, now: fixedNow) }
        #expect(code == "invalid_signature")
    }
}

/// A root certificate unrelated to any chain in the fixtures.
enum AppStoreTestingRoot {
    static func make() throws -> Certificate {
        let key = P256.Signing.PrivateKey()
        let name = try DistinguishedName { CommonName("Unrelated Root") }
        return try Certificate(
            version: .v3,
            serialNumber: .init(),
            publicKey: .init(key.publicKey),
            notValidBefore: Date(timeIntervalSince1970: 1_600_000_000),
            notValidAfter: Date(timeIntervalSince1970: 2_000_000_000),
            issuer: name,
            subject: name,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try .init { Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil)) },
            issuerPrivateKey: .init(key)
        )
    }
}
