import AppStore
import AppStoreTesting
import Foundation
import Testing

/// The JWS nested in a V2 notification: covered by the notification's signature by default, still
/// checked for header, chain and claims, and checked on their own when configured.
@Suite struct NestedSignatureTests {
    static let bundleId = GeneratedPKITests.bundleId

    /// A validly signed notification whose nested transaction is `nested`, as given, with an
    /// AppTransaction when `appTransaction` is given.
    static func notification(_ pki: TestPKI, nestedTransaction nested: String, appTransaction: String? = nil) throws -> String {
        try pki.signNotification(
            ResponseBodyV2DecodedPayload(
                notificationType: .didRenew,
                notificationUUID: UUID().uuidString.lowercased(),
                data: NotificationData(
                    environment: .sandbox, bundleId: bundleId, bundleVersion: "1",
                    signedTransactionInfo: nested, signedRenewalInfo: try pki.signRenewalInfo(GeneratedPKITests.renewal)
                ),
                version: "2.0",
                signedDate: GeneratedPKITests.signedDate,
                appData: appTransaction.map { AppData(bundleId: bundleId, environment: .sandbox, signedAppTransactionInfo: $0) }
            )
        )
    }

    /// A sandbox AppTransaction of the app with one byte of its own signature flipped.
    static func badlySignedAppTransaction(_ pki: TestPKI) throws -> String {
        let payload = AppTransactionDecodedPayload(
            receiptType: .sandbox, bundleId: bundleId, applicationVersion: "1", receiptCreationDate: GeneratedPKITests.signedDate
        )
        return GeneratedPKITests.flipByte(inSegment: 2, of: try pki.signAppTransaction(payload))
    }

    /// The nested transaction with one byte of its own signature flipped.
    static func badlySignedTransaction(_ pki: TestPKI) throws -> String {
        GeneratedPKITests.flipByte(inSegment: 2, of: try pki.signTransaction(GeneratedPKITests.transaction()))
    }

    @Test func nestedJWSAreCoveredByTheNotificationsSignatureByDefault() async throws {
        let pki = try TestPKI()
        let verifier = try pki.makeVerifier(bundleId: Self.bundleId)
        let result = try await verifier.verifyNotification(
            signedPayload: Self.notification(
                pki, nestedTransaction: Self.badlySignedTransaction(pki), appTransaction: Self.badlySignedAppTransaction(pki)
            ),
            now: fixedNow
        )
        #expect(result.transaction?.payload.transactionId == "1001")
        #expect(result.appTransaction?.facts.isCoveredByEnclosingSignature == true)
        #expect(result.transaction?.facts.isCoveredByEnclosingSignature == true)
        #expect(result.transaction?.facts.isSignatureVerified == true)
        #expect(result.renewalInfo?.facts.isCoveredByEnclosingSignature == true)
        #expect(result.notification.facts.isCoveredByEnclosingSignature == false)
    }

    @Test func nestedSignaturesAreCheckedWhenConfigured() async throws {
        let pki = try TestPKI()
        var configuration = pki.verifierConfiguration(apps: [AppStoreApp(bundleId: Self.bundleId, environments: [.sandbox])])
        configuration.checksNestedSignatures = true
        let verifier = try SignedDataVerifier(configuration: configuration)
        let bad = try Self.notification(pki, nestedTransaction: Self.badlySignedTransaction(pki))
        #expect(await errorCode { _ = try await verifier.verifyNotification(signedPayload: bad, now: fixedNow) } == "invalid_signature")

        let good = try Self.notification(pki, nestedTransaction: pki.signTransaction(GeneratedPKITests.transaction()))
        let result = try await verifier.verifyNotification(signedPayload: good, now: fixedNow)
        #expect(result.transaction?.facts.isCoveredByEnclosingSignature == false)
        #expect(result.transaction?.facts.isSignatureVerified == true)
    }

    @Test func aNestedChainIsCheckedEvenWhenItsSignatureIsCovered() async throws {
        let pki = try TestPKI()
        let other = try TestPKI(name: "other")
        let verifier = try pki.makeVerifier(bundleId: Self.bundleId)
        let jws = try Self.notification(pki, nestedTransaction: other.signTransaction(GeneratedPKITests.transaction()))
        let code = await errorCode { _ = try await verifier.verifyNotification(signedPayload: jws, now: fixedNow) }
        #expect(code == "untrusted_chain")
    }

    @Test func aForgedNotificationIsRejectedWhateverItNests() async throws {
        let pki = try TestPKI()
        let verifier = try pki.makeVerifier(bundleId: Self.bundleId)
        let jws = try Self.notification(pki, nestedTransaction: pki.signTransaction(GeneratedPKITests.transaction()))
        let forged = GeneratedPKITests.flipByte(inSegment: 2, of: jws)
        let code = await errorCode { _ = try await verifier.verifyNotification(signedPayload: forged, now: fixedNow) }
        #expect(code == "invalid_signature")
    }
}
