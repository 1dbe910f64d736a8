import AppStore
import AppStoreTesting
import Foundation
import Testing

/// Genuine Apple-signed sandbox data, verified against the bundled Apple Root CA - G3 at each payload's signedDate.
@Suite struct RealAppleDataTests {
    static let sessionBundleId = "com.loki-project.loki-messenger"

    static func sessionVerifier(cacheCapacity: Int = 64) throws -> SignedDataVerifier {
        try SignedDataVerifier(
            configuration: .init(
                trustedRoots: [try TrustAnchors.appleRootCAG3()],
                apps: [AppStoreApp(bundleId: sessionBundleId, appAppleId: 1_470_168_868, environments: [.sandbox])],
                chainCacheCapacity: cacheCapacity
            )
        )
    }

    struct ManifestEntry: Decodable {
        var file: String
        var decoded_payload: ResponseBodyV2DecodedPayload
        var decoded_signedTransactionInfo: JWSTransactionDecodedPayload?
        var decoded_signedRenewalInfo: JWSRenewalInfoDecodedPayload?
        var leaf_serial: String
    }

    static let notificationFiles: [String] = (try? Fixture.files(in: "real_signed/session_sandbox_notifications", withExtension: "jws")) ?? []

    @Test func sessionNotificationsAreFourteenFiles() {
        #expect(Self.notificationFiles.count == 14)
    }

    @Test(arguments: notificationFiles)
    func realSandboxNotificationVerifiesAgainstBundledG3AtItsSignedDate(file: String) async throws {
        let verifier = try Self.sessionVerifier()
        let manifest = try JSONDecoder().decode([ManifestEntry].self, from: Fixture.data("real_signed/session_sandbox_notifications/MANIFEST.decoded.json"))
        let expected = try #require(manifest.first { "real_signed/" + $0.file == file })

        let result = try await verifier.verifyNotification(signedPayload: try Fixture.text(file), now: fixedNow)

        // The manifest lists the nested JWS decoded separately, not as strings inside `data`.
        var outer = result.payload
        outer.data?.signedTransactionInfo = nil
        outer.data?.signedRenewalInfo = nil
        #expect(outer == expected.decoded_payload)
        #expect(result.transaction?.payload == expected.decoded_signedTransactionInfo)
        #expect(result.renewalInfo?.payload == expected.decoded_signedRenewalInfo)
        #expect(result.notification.facts.isSignatureVerified)
        #expect(result.notification.facts.environment == .sandbox)
        #expect(result.notification.facts.effectiveDate == expected.decoded_payload.signedDate?.date)
        #expect(result.transaction?.facts.leafCertificateFingerprint == result.notification.facts.leafCertificateFingerprint)
        // The nested JWS reuse the chain validated for the outer one.
        #expect(result.transaction?.facts.usedCachedChain == true)
        #expect(result.renewalInfo?.facts.usedCachedChain == true)
    }

    @Test func refundNotificationCarriesRevocationOfAnOlderPeriod() async throws {
        let verifier = try Self.sessionVerifier()
        let file = "real_signed/session_sandbox_notifications/1760592122788_REFUND.jws"
        let result = try await verifier.verifyNotification(signedPayload: try Fixture.text(file), now: fixedNow)
        #expect(result.payload.notificationType == .refund)
        #expect(result.payload.data?.status == .active)
        #expect(result.transaction?.payload.transactionId == "2000001032604840")
        #expect(result.transaction?.payload.revocationDate == 1_760_591_999_000)
        #expect(result.transaction?.payload.revocationReason == .other)
    }

    @Test func realNotificationIsUntrustedByAVerifierThatDoesNotTrustG3() async throws {
        let pki = try TestPKI()
        let verifier = try SignedDataVerifier(
            configuration: pki.verifierConfiguration(apps: [AppStoreApp(bundleId: Self.sessionBundleId, environments: [.sandbox])])
        )
        let file = "real_signed/session_sandbox_notifications/1759302518835_DID_RENEW.jws"
        let code = await errorCode { _ = try await verifier.verifyNotification(signedPayload: try Fixture.text(file), now: fixedNow) }
        #expect(code == "untrusted_chain")
    }

    @Test func realNotificationForAnotherBundleIsUnknownApp() async throws {
        let verifier = try SignedDataVerifier(apps: [AppStoreApp(bundleId: "com.example.other", environments: [.sandbox])])
        let file = "real_signed/session_sandbox_notifications/1759302518835_DID_RENEW.jws"
        let code = await errorCode { _ = try await verifier.verifyNotification(signedPayload: try Fixture.text(file), now: fixedNow) }
        #expect(code == "unknown_app")
    }

    @Test func realNotificationIsRefusedByAProductionOnlyVerifier() async throws {
        let verifier = try SignedDataVerifier(
            apps: [AppStoreApp(bundleId: Self.sessionBundleId, appAppleId: 1_470_168_868, environments: [.production])]
        )
        let file = "real_signed/session_sandbox_notifications/1759302518835_DID_RENEW.jws"
        let code = await errorCode { _ = try await verifier.verifyNotification(signedPayload: try Fixture.text(file), now: fixedNow) }
        #expect(code == "environment_not_accepted")
    }

    @Test func realNotificationWithAnotherAppAppleIdIsRejected() async throws {
        let verifier = try SignedDataVerifier(
            apps: [AppStoreApp(bundleId: Self.sessionBundleId, appAppleId: 42, environments: [.sandbox])]
        )
        let file = "real_signed/session_sandbox_notifications/1759302518835_DID_RENEW.jws"
        let code = await errorCode { _ = try await verifier.verifyNotification(signedPayload: try Fixture.text(file), now: fixedNow) }
        #expect(code == "app_apple_id_mismatch")
    }

    @Test func realTestNotificationWithoutAppAppleIdVerifies() async throws {
        let verifier = try Self.sessionVerifier()
        let result = try await verifier.verifyNotification(
            signedPayload: try Fixture.text("real_signed/session_sandbox_TEST_notification_2025-09-05.jws"),
            now: fixedNow
        )
        #expect(result.payload.notificationType == .test)
        #expect(result.payload.data?.appAppleId == nil)
        #expect(result.transaction == nil)
        #expect(result.notification.facts.effectiveDate == Date(timeIntervalSince1970: 1_757_035_472.686))
    }

    @Test func expiredLeafVerifiesAtItsSignedDateNotAtNow() async throws {
        let verifier = try SignedDataVerifier(apps: [AppStoreApp(bundleId: "co.ringalarm", environments: [.sandbox])])
        let jws = try Fixture.text("real_signed/awa-go-iap_sandbox_renewalInfo_2023-05-23.jws")
        let result = try await verifier.verifyRenewalInfo(jws, now: fixedNow)
        #expect(result.payload.originalTransactionId == "2000000335310644")
        #expect(result.payload.autoRenewStatus == .on)
        #expect(result.facts.effectiveDate == Date(timeIntervalSince1970: 1_684_822_778.492))
    }

    @Test func withoutCacheEveryJWSBuildsItsChain() async throws {
        let verifier = try Self.sessionVerifier(cacheCapacity: 0)
        let file = "real_signed/session_sandbox_notifications/1759302518835_DID_RENEW.jws"
        let result = try await verifier.verifyNotification(signedPayload: try Fixture.text(file), now: fixedNow)
        #expect(result.notification.facts.usedCachedChain == false)
        #expect(result.transaction?.facts.usedCachedChain == false)
    }

    @Test func leafFingerprintIsTheSHA256OfTheRealLeaf() async throws {
        let verifier = try Self.sessionVerifier()
        let file = "real_signed/session_sandbox_notifications/1759302518835_DID_RENEW.jws"
        let result = try await verifier.verifyNotification(signedPayload: try Fixture.text(file), now: fixedNow)
        let leaf = try Fixture.data("certs/real_apple_chain/ProdECC_ReceiptSigning_2025-09-19_to_2027-10-13.der")
        #expect(result.notification.facts.leafCertificateFingerprint == TrustAnchors.fingerprint(ofDER: leaf))
    }
}
