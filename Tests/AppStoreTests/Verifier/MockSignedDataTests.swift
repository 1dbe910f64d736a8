import AppStore
import Foundation
import Testing
import X509

/// Apple's `mock_signed_data` fixtures, verified against Apple's test CA as Apple's libraries do.
@Suite struct MockSignedDataTests {
    static func verifier(environments: Set<AppStoreEnvironment> = [.sandbox], appAppleId: Int64? = 1234, bundleId: String = "com.example") throws -> SignedDataVerifier {
        try SignedDataVerifier(
            configuration: .init(
                trustedRoots: [try Certificate(derEncoded: Array(Fixture.data("test_pki/testCA.der")))],
                apps: [AppStoreApp(bundleId: bundleId, appAppleId: appAppleId, environments: environments)]
            )
        )
    }

    @Test func testNotificationVerifiesWithItsOwnX5CRootIgnored() async throws {
        let result = try await Self.verifier().verifyNotification(signedPayload: Fixture.text("mock_signed_data/testNotification"), now: fixedNow)
        #expect(result.payload.notificationType == .test)
        #expect(result.payload.notificationUUID == "9ad56bd2-0bc6-42e0-af24-fd996d87a1e6")
        #expect(result.notification.facts.effectiveDate == Date(timeIntervalSince1970: 1_681_314_324))
    }

    @Test func testNotificationIsRefusedByAProductionVerifier() async throws {
        let code = await errorCode {
            _ = try await Self.verifier(environments: [.production]).verifyNotification(signedPayload: Fixture.text("mock_signed_data/testNotification"), now: fixedNow)
        }
        #expect(code == "environment_not_accepted")
    }

    @Test func testNotificationWithAnotherAppAppleIdIsRejected() async throws {
        let code = await errorCode {
            _ = try await Self.verifier(environments: [.production], appAppleId: 1235).verifyNotification(signedPayload: Fixture.text("mock_signed_data/testNotification"), now: fixedNow)
        }
        #expect(code == "app_apple_id_mismatch")
    }

    @Test func transactionInfoVerifies() async throws {
        let result = try await Self.verifier().verifyTransaction(Fixture.text("mock_signed_data/transactionInfo"), now: fixedNow)
        #expect(result.payload.bundleId == "com.example")
        #expect(result.payload.signedDate == 1_672_956_154_000)
    }

    @Test func renewalInfoVerifies() async throws {
        let result = try await Self.verifier().verifyRenewalInfo(Fixture.text("mock_signed_data/renewalInfo"), now: fixedNow)
        #expect(result.facts.environment == .sandbox)
    }

    @Test func wrongBundleIdIsUnknownApp() async throws {
        let code = await errorCode {
            _ = try await Self.verifier(bundleId: "com.examplex").verifyNotification(signedPayload: Fixture.text("mock_signed_data/wrongBundleId"), now: fixedNow)
        }
        #expect(code == "unknown_app")
    }

    @Test func missingX5CHeaderIsInvalidFormat() async throws {
        let code = await errorCode {
            _ = try await Self.verifier().verifyNotification(signedPayload: Fixture.text("mock_signed_data/missingX5CHeaderClaim"), now: fixedNow)
        }
        #expect(code == "invalid_format")
    }

    @Test func legacyTransactionReceiptIsNotAJWS() async throws {
        let code = await errorCode {
            _ = try await Self.verifier().verifyTransaction(Fixture.text("mock_signed_data/legacyTransaction"), now: fixedNow)
        }
        #expect(code == "invalid_format")
    }

    @Test func legacyTransactionReceiptYieldsItsTransactionId() throws {
        #expect(try LegacyTransactionReceipt.transactionId(fromBase64: Fixture.text("mock_signed_data/legacyTransaction")) == "33993399")
    }

    @Test func testChainIsNotTrustedByDefault() async throws {
        let verifier = try SignedDataVerifier(apps: [AppStoreApp(bundleId: "com.example", environments: [.sandbox])])
        let code = await errorCode { _ = try await verifier.verifyTransaction(Fixture.text("mock_signed_data/transactionInfo"), now: fixedNow) }
        #expect(code == "untrusted_chain")
    }
}

/// StoreKit Testing in Xcode data: unsigned by Apple, accepted only where enabled, marked unverified.
@Suite struct XcodeDataTests {
    static let bundleId = "com.example.naturelab.backyardbirds.example"

    static func verifier(allowLocal: Bool) throws -> SignedDataVerifier {
        try SignedDataVerifier(
            apps: [AppStoreApp(bundleId: bundleId, appAppleId: 1, environments: [.production, .sandbox], allowsUnsignedLocalEnvironments: allowLocal)]
        )
    }

    @Test func xcodeTransactionDecodesWithTruncatedFractionalMilliseconds() async throws {
        let result = try await Self.verifier(allowLocal: true).verifyTransaction(Fixture.text("xcode/xcode-signed-transaction"), now: fixedNow)
        #expect(result.facts.isSignatureVerified == false)
        #expect(result.facts.leafCertificateFingerprint == nil)
        #expect(result.facts.environment == .xcode)
        #expect(result.payload.purchaseDate == 1_697_679_936_049)
        #expect(result.payload.expiresDate == 1_700_358_336_049)
        #expect(result.payload.signedDate == 1_697_679_936_056)
        #expect(result.payload.transactionId == "0")
        #expect(result.payload.productId == "pass.premium")
        #expect(result.payload.offerType == .introductory)
    }

    @Test func xcodeRenewalInfoDecodes() async throws {
        let result = try await Self.verifier(allowLocal: true).verifyRenewalInfo(Fixture.text("xcode/xcode-signed-renewal-info"), bundleId: Self.bundleId, now: fixedNow)
        #expect(result.payload.autoRenewStatus == .on)
        #expect(result.payload.renewalDate == 1_700_358_336_049)
        #expect(result.facts.isSignatureVerified == false)
    }

    @Test func xcodeAppTransactionDecodes() async throws {
        let result = try await Self.verifier(allowLocal: true).verifyAppTransaction(Fixture.text("xcode/xcode-signed-app-transaction"), now: fixedNow)
        #expect(result.payload.receiptType == .xcode)
        #expect(result.payload.originalPurchaseDate == -62_135_769_600_000)
        #expect(result.payload.receiptCreationDate == 1_697_680_122_257)
    }

    @Test(arguments: ["xcode/xcode-signed-transaction", "xcode/xcode-signed-app-transaction"])
    func xcodeDataIsRefusedWhenNotEnabled(file: String) async throws {
        let verifier = try Self.verifier(allowLocal: false)
        let code = await errorCode {
            if file.hasSuffix("app-transaction") {
                _ = try await verifier.verifyAppTransaction(Fixture.text(file), now: fixedNow)
            } else {
                _ = try await verifier.verifyTransaction(Fixture.text(file), now: fixedNow)
            }
        }
        #expect(code == "environment_not_accepted")
    }

    @Test func xcodeRenewalInfoIsRefusedWhenNoAppEnablesIt() async throws {
        let code = await errorCode { _ = try await Self.verifier(allowLocal: false).verifyRenewalInfo(Fixture.text("xcode/xcode-signed-renewal-info"), now: fixedNow) }
        #expect(code == "environment_not_accepted")
    }
}
