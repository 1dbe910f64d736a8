import AppStore
import AppStoreTesting
import Crypto
import Foundation
import Testing
import X509

/// Transactions, renewal infos and notifications minted at runtime by `TestPKI`, through the real verifier.
@Suite struct GeneratedPKITests {
    static let bundleId = "com.example.subledger"
    static let signedDate: AppStoreDate = 1_735_000_000_000

    static func transaction(_ id: String = "1001", bundleId: String = bundleId, environment: AppStoreEnvironment = .sandbox) -> JWSTransactionDecodedPayload {
        JWSTransactionDecodedPayload(
            originalTransactionId: "1000",
            transactionId: id,
            bundleId: bundleId,
            productId: "pro.monthly",
            purchaseDate: 1_734_999_000_000,
            expiresDate: 1_737_677_400_000,
            quantity: 1,
            type: .autoRenewableSubscription,
            inAppOwnershipType: .purchased,
            signedDate: signedDate,
            environment: environment,
            transactionReason: .purchase,
            currency: "EUR",
            price: 4990
        )
    }

    static let renewal = JWSRenewalInfoDecodedPayload(
        originalTransactionId: "1000",
        autoRenewProductId: "pro.monthly",
        productId: "pro.monthly",
        autoRenewStatus: .on,
        signedDate: signedDate,
        environment: .sandbox
    )

    @Test func mintedTransactionVerifiesAndRoundTrips() async throws {
        let pki = try TestPKI()
        let verifier = try pki.makeVerifier(bundleId: Self.bundleId)
        let result = try await verifier.verifyTransaction(pki.signTransaction(Self.transaction()), now: fixedNow)
        #expect(result.payload == Self.transaction())
        #expect(result.facts.leafCertificateFingerprint == pki.leafFingerprint)
        #expect(result.facts.isSignatureVerified)
        #expect(result.facts.effectiveDate == Self.signedDate.date)
    }

    /// `x5c` entries are standard, padded base64 (RFC 7515, section 4.1.6). Another spelling of the
    /// same DER is refused before any chain work: each one missed the chain cache, so anyone could
    /// evict the chains in use with Apple's own public certificates. The genuine chain, validated
    /// before it, is still served from the cache after it.
    @Test func anX5cInAnotherSpellingIsRefusedAndLeavesTheCacheAlone() async throws {
        let pki = try TestPKI()
        let verifier = try pki.makeVerifier(bundleId: Self.bundleId)
        let first = try await verifier.verifyTransaction(pki.signTransaction(Self.transaction()), now: fixedNow)
        #expect(first.facts.usedCachedChain == false)
        let respelled = pki.x5c.map { $0.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_") }
        try #require(Array(respelled.prefix(2)) != Array(pki.x5c.prefix(2)), "no + or / to respell")
        let forged = try pki.sign(payloadJSON: JSONEncoder().encode(Self.transaction()), x5c: respelled)
        let code = await errorCode { _ = try await verifier.verifyTransaction(forged, now: fixedNow) }
        #expect(code == "invalid_certificate")
        let second = try await verifier.verifyTransaction(pki.signTransaction(Self.transaction("1002")), now: fixedNow)
        #expect(second.facts.usedCachedChain == true)
    }

    /// A leaf whose key is not P-256 cannot sign ES256: refused at step 7 with the parsing, before
    /// the markers and the dates are looked at (appstore.md's order), so a leaf that also lacks its
    /// marker is still `invalid_certificate`.
    @Test(arguments: [true, false])
    func aLeafKeyNotOnP256IsAnInvalidCertificateBeforeTheMarkers(_ leafHasAppleMarker: Bool) async throws {
        let pki = try TestPKI(leafHasAppleMarker: leafHasAppleMarker, leafCertificateKey: Certificate.PublicKey(P384.Signing.PrivateKey().publicKey))
        let verifier = try pki.makeVerifier(bundleId: Self.bundleId)
        let code = await errorCode { _ = try await verifier.verifyTransaction(pki.signTransaction(Self.transaction()), now: fixedNow) }
        #expect(code == "invalid_certificate")
    }

    @Test func mintedRenewalInfoVerifies() async throws {
        let pki = try TestPKI()
        let result = try await pki.makeVerifier(bundleId: Self.bundleId).verifyRenewalInfo(pki.signRenewalInfo(Self.renewal), now: fixedNow)
        #expect(result.payload == Self.renewal)
    }

    @Test func mintedNotificationVerifiesWithItsNestedJWS() async throws {
        let pki = try TestPKI()
        let jws = try pki.signNotification(
            type: .subscribed, subtype: .initialBuy, bundleId: Self.bundleId, appAppleId: 77,
            transaction: Self.transaction(), renewalInfo: Self.renewal, status: .active, signedDate: Self.signedDate
        )
        let verifier = try pki.makeVerifier(bundleId: Self.bundleId, appAppleId: 77)
        let result = try await verifier.verifyNotificationBody(TestPKI.notificationBody(signedPayload: jws), now: fixedNow)
        #expect(result.payload.notificationType == .subscribed)
        #expect(result.payload.subtype == .initialBuy)
        #expect(result.payload.data?.status == .active)
        #expect(result.transaction?.payload.transactionId == "1001")
        #expect(result.renewalInfo?.payload.autoRenewStatus == .on)
        #expect(result.notification.facts.usedCachedChain == false)
        #expect(result.transaction?.facts.usedCachedChain == true)
    }

    @Test func productionNotificationVerifiesWithMatchingAppAppleId() async throws {
        let pki = try TestPKI()
        let jws = try pki.signNotification(
            type: .didRenew, bundleId: Self.bundleId, appAppleId: 77, environment: .production,
            transaction: Self.transaction(environment: .production), signedDate: Self.signedDate
        )
        let verifier = try pki.makeVerifier(bundleId: Self.bundleId, appAppleId: 77, environments: [.production])
        let result = try await verifier.verifyNotification(signedPayload: jws, now: fixedNow)
        #expect(result.notification.facts.environment == .production)
    }

    @Test func productionNotificationWithoutAppAppleIdIsRejected() async throws {
        let pki = try TestPKI()
        let jws = try pki.signNotification(type: .didRenew, bundleId: Self.bundleId, environment: .production, signedDate: Self.signedDate)
        let verifier = try pki.makeVerifier(bundleId: Self.bundleId, appAppleId: 77, environments: [.production])
        let code = await errorCode { _ = try await verifier.verifyNotification(signedPayload: jws, now: fixedNow) }
        #expect(code == "app_apple_id_mismatch")
    }

    @Test func nestedTransactionOfAnotherEnvironmentIsAPayloadMismatch() async throws {
        let pki = try TestPKI()
        let jws = try pki.signNotification(
            type: .didRenew, bundleId: Self.bundleId, appAppleId: 77, environment: .sandbox,
            transaction: Self.transaction(environment: .production), signedDate: Self.signedDate
        )
        let verifier = try SignedDataVerifier(
            configuration: pki.verifierConfiguration(apps: [AppStoreApp(bundleId: Self.bundleId, appAppleId: 77, environments: [.sandbox, .production])])
        )
        let code = await errorCode { _ = try await verifier.verifyNotification(signedPayload: jws, now: fixedNow) }
        #expect(code == "payload_mismatch")
    }

    @Test func nestedTransactionOfAnotherAppIsAPayloadMismatch() async throws {
        let pki = try TestPKI()
        let jws = try pki.signNotification(
            type: .didRenew, bundleId: Self.bundleId, transaction: Self.transaction(bundleId: "com.example.other"), signedDate: Self.signedDate
        )
        let verifier = try SignedDataVerifier(
            configuration: pki.verifierConfiguration(apps: [
                AppStoreApp(bundleId: Self.bundleId, environments: [.sandbox]),
                AppStoreApp(bundleId: "com.example.other", environments: [.sandbox]),
            ])
        )
        let code = await errorCode { _ = try await verifier.verifyNotification(signedPayload: jws, now: fixedNow) }
        #expect(code == "payload_mismatch")
    }

    // MARK: Rejections

    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let code: String
        let make: @Sendable (TestPKI) throws -> String
        var testDescription: String { name }
    }

    static let rejectedTokens: [Case] = [
        Case(name: "wrong bundle id", code: "unknown_app") { try $0.signTransaction(transaction(bundleId: "com.example.wrong")) },
        Case(name: "wrong environment", code: "environment_not_accepted") { try $0.signTransaction(transaction(environment: .production)) },
        Case(name: "unknown environment", code: "environment_not_accepted") { try $0.signTransaction(transaction(environment: AppStoreEnvironment(rawValue: "Staging"))) },
        Case(name: "flipped signature byte", code: "invalid_signature") { pki in
            let jws = try pki.signTransaction(transaction())
            return flipByte(inSegment: 2, of: jws)
        },
        Case(name: "payload swapped under the signature", code: "invalid_signature") { pki in
            let jws = try pki.signTransaction(transaction())
            // Re-encode a payload with another id under the original header and signature.
            let parts = jws.split(separator: ".").map(String.init)
            let other = try JSONEncoder().encode(transaction("9999"))
            return parts[0] + "." + JWSBuilder.base64URL(other) + "." + parts[2]
        },
        Case(name: "HS256 algorithm", code: "unsupported_algorithm") { try $0.sign(payloadJSON: JSONEncoder().encode(transaction()), alg: "HS256") },
        Case(name: "alg none", code: "unsupported_algorithm") { try $0.sign(payloadJSON: JSONEncoder().encode(transaction()), alg: "none") },
        Case(name: "two certificates", code: "invalid_chain_length") { try $0.sign(payloadJSON: JSONEncoder().encode(transaction()), x5c: Array($0.x5c.prefix(2))) },
        Case(name: "one certificate", code: "invalid_chain_length") { try $0.sign(payloadJSON: JSONEncoder().encode(transaction()), x5c: Array($0.x5c.prefix(1))) },
        Case(name: "empty x5c", code: "invalid_chain_length") { try $0.sign(payloadJSON: JSONEncoder().encode(transaction()), x5c: []) },
        Case(name: "x5c not base64", code: "invalid_certificate") { pki in try pki.sign(payloadJSON: JSONEncoder().encode(transaction()), x5c: ["***", pki.x5c[1], pki.x5c[2]]) },
        Case(name: "truncated token", code: "invalid_format") { String(try $0.signTransaction(transaction()).prefix(200)) },
        Case(name: "token cut before the signature", code: "invalid_format") { pki in
            let jws = try pki.signTransaction(transaction())
            return String(jws[..<(jws.lastIndex(of: ".") ?? jws.endIndex)])
        },
        Case(name: "four segments", code: "invalid_format") { try $0.signTransaction(transaction()) + ".e30" },
        Case(name: "empty string", code: "invalid_format") { _ in "" },
        Case(name: "plain JSON", code: "invalid_format") { _ in "{\"signedPayload\":\"x\"}" },
        Case(name: "payload not JSON", code: "invalid_format") { try $0.sign(payloadJSON: Data("not json".utf8)) },
        Case(name: "payload a JSON array", code: "invalid_format") { try $0.sign(payloadJSON: Data("[1,2]".utf8)) },
        Case(name: "payload with a string date", code: "invalid_payload") { try $0.sign(payloadJSON: Data("{\"bundleId\":\"com.example.subledger\",\"signedDate\":\"yesterday\"}".utf8)) },
        Case(name: "oversized token", code: "input_too_large") { pki in
            var payload = transaction()
            payload.offerIdentifier = String(repeating: "x", count: 70_000)
            return try pki.signTransaction(payload)
        },
        Case(name: "signature of the wrong length", code: "invalid_signature") { pki in
            let jws = try pki.signTransaction(transaction())
            return jws + "AAAA"
        },
        Case(name: "non-base64 character in the payload", code: "invalid_format") { pki in
            let parts = try pki.signTransaction(transaction()).split(separator: ".").map(String.init)
            return parts[0] + ".%%%." + parts[2]
        },
    ]

    @Test(arguments: rejectedTokens)
    func tokenIsRejected(_ rejected: Case) async throws {
        let pki = try TestPKI()
        let verifier = try pki.makeVerifier(bundleId: Self.bundleId)
        let jws = try rejected.make(pki)
        let code = await errorCode { _ = try await verifier.verifyTransaction(jws, now: fixedNow) }
        #expect(code == rejected.code)
    }

    /// swift-asn1's and swift-certificates' error texts end with the Swift file and line that threw;
    /// what reaches a client (and the rejections table) keeps their reason and drops that location.
    @Test func aCertificateThatIsNotDERIsRefusedWithoutTheLibrarysSourceLocation() async throws {
        let pki = try TestPKI()
        let verifier = try pki.makeVerifier(bundleId: Self.bundleId)
        let jws = try pki.sign(payloadJSON: JSONEncoder().encode(Self.transaction()), x5c: ["AAAA", pki.x5c[1], pki.x5c[2]])
        await #expect {
            _ = try await verifier.verifyTransaction(jws, now: fixedNow)
        } throws: { error in
            guard let error = error as? AppStoreError else { return false }
            return error.code == .invalidCertificate && error.message.hasPrefix("x5c leaf certificate is not DER X.509: ")
                && !error.message.contains(".swift") && error.message.contains("ASN1Error")
        }
    }

    /// A field of the wrong JSON type is named with the type it must have, in JSON's words, not the
    /// decoder's Swift ones ("Expected to decode Int but found a string").
    @Test func aPayloadFieldOfTheWrongTypeIsNamedInJSONsWords() async throws {
        let pki = try TestPKI()
        let verifier = try pki.makeVerifier(bundleId: Self.bundleId)
        let jws = try pki.sign(payloadJSON: Data(#"{"bundleId":"com.example.subledger","quantity":"two"}"#.utf8))
        let error = await appStoreError { _ = try await verifier.verifyTransaction(jws, now: fixedNow) }
        #expect(error?.code == .invalidPayload)
        #expect(error?.message.hasSuffix("payload does not match Apple's format: quantity must be an integer") == true, "\(String(describing: error))")
    }

    static func flipByte(inSegment segment: Int, of jws: String) -> String {
        var parts = jws.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        var bytes = Array(Data(base64Encoded: padded(parts[segment])) ?? Data())
        bytes[bytes.count / 2] ^= 0x01
        parts[segment] = JWSBuilder.base64URL(bytes)
        return parts.joined(separator: ".")
    }

    static func padded(_ base64URL: String) -> String {
        var text = base64URL.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while text.count % 4 != 0 { text += "=" }
        return text
    }

    @Test(arguments: [(true, false, "missing_apple_extension"), (false, true, "missing_apple_extension")])
    func chainWithoutAppleMarkerIsRejected(leafMarker: Bool, intermediateMarker: Bool, code expected: String) async throws {
        let pki = try TestPKI(leafHasAppleMarker: leafMarker, intermediateHasAppleMarker: intermediateMarker)
        let code = await errorCode { _ = try await pki.makeVerifier(bundleId: Self.bundleId).verifyTransaction(pki.signTransaction(Self.transaction()), now: fixedNow) }
        #expect(code == expected)
    }

    @Test func leafExpiredAtTheSignedDateIsRejectedEvenWithAWarmCache() async throws {
        let pki = try TestPKI(leafNotValidAfter: Date(timeIntervalSince1970: 1_740_000_000))
        let verifier = try pki.makeVerifier(bundleId: Self.bundleId)
        // Warm the cache with a JWS inside the window...
        let fresh = try await verifier.verifyTransaction(pki.signTransaction(Self.transaction()), now: fixedNow)
        #expect(fresh.facts.usedCachedChain == false)
        // ...then the same chain signing after the leaf expired is refused from the cache.
        var late = Self.transaction()
        late.signedDate = 1_750_000_000_000
        let code = await errorCode { _ = try await verifier.verifyTransaction(pki.signTransaction(late), now: fixedNow) }
        #expect(code == "certificate_expired")
        // ...and so is one signed before the chain existed.
        var early = Self.transaction()
        early.signedDate = 1_500_000_000_000
        let earlyCode = await errorCode { _ = try await verifier.verifyTransaction(pki.signTransaction(early), now: fixedNow) }
        #expect(earlyCode == "certificate_expired")
    }

    @Test func leafExpiredAtTheSignedDateIsRejectedOnTheColdPath() async throws {
        let pki = try TestPKI(leafNotValidAfter: Date(timeIntervalSince1970: 1_740_000_000))
        var late = Self.transaction()
        late.signedDate = 1_750_000_000_000
        let code = await errorCode { _ = try await pki.makeVerifier(bundleId: Self.bundleId).verifyTransaction(pki.signTransaction(late), now: fixedNow) }
        #expect(code == "certificate_expired")
    }

    @Test func payloadWithoutSignedDateIsCheckedAtNow() async throws {
        let pki = try TestPKI(leafNotValidAfter: Date(timeIntervalSince1970: 1_740_000_000))
        var undated = Self.transaction()
        undated.signedDate = nil
        let verifier = try pki.makeVerifier(bundleId: Self.bundleId)
        let result = try await verifier.verifyTransaction(pki.signTransaction(undated), now: fixedNow)
        #expect(result.facts.effectiveDate == fixedNow)
        let code = await errorCode { _ = try await verifier.verifyTransaction(pki.signTransaction(undated), now: Date(timeIntervalSince1970: 1_750_000_000)) }
        #expect(code == "certificate_expired")
    }

    @Test func chainOfAnotherPKIIsUntrusted() async throws {
        let trusted = try TestPKI(name: "trusted")
        let other = try TestPKI(name: "other")
        let code = await errorCode { _ = try await trusted.makeVerifier(bundleId: Self.bundleId).verifyTransaction(other.signTransaction(Self.transaction()), now: fixedNow) }
        #expect(code == "untrusted_chain")
    }

    @Test func leafOfOnePKIWithIntermediateOfAnotherIsUntrusted() async throws {
        let pki = try TestPKI(name: "one")
        let other = try TestPKI(name: "two")
        let jws = try pki.sign(payloadJSON: JSONEncoder().encode(Self.transaction()), x5c: [pki.x5c[0], other.x5c[1], pki.x5c[2]])
        let verifier = try SignedDataVerifier(configuration: pki.verifierConfiguration(apps: [AppStoreApp(bundleId: Self.bundleId, environments: [.sandbox])]).adding(root: other.root))
        let code = await errorCode { _ = try await verifier.verifyTransaction(jws, now: fixedNow) }
        #expect(code == "untrusted_chain")
    }

    @Test func secondVerificationOfTheSameChainUsesTheCache() async throws {
        let pki = try TestPKI()
        let verifier = try pki.makeVerifier(bundleId: Self.bundleId)
        let first = try await verifier.verifyTransaction(pki.signTransaction(Self.transaction("1")), now: fixedNow)
        let second = try await verifier.verifyTransaction(pki.signTransaction(Self.transaction("2")), now: fixedNow)
        #expect(first.facts.usedCachedChain == false)
        #expect(second.facts.usedCachedChain == true)
    }

    @Test func disabledCacheRevalidatesEveryChain() async throws {
        let pki = try TestPKI()
        let verifier = try pki.makeVerifier(bundleId: Self.bundleId, chainCacheCapacity: 0)
        _ = try await verifier.verifyTransaction(pki.signTransaction(Self.transaction("1")), now: fixedNow)
        let second = try await verifier.verifyTransaction(pki.signTransaction(Self.transaction("2")), now: fixedNow)
        #expect(second.facts.usedCachedChain == false)
    }

    @Test func cacheEvictsTheLeastRecentlyUsedChain() async throws {
        let pkis = try (0..<3).map { try TestPKI(name: "pki \($0)") }
        let verifier = try SignedDataVerifier(
            configuration: .init(
                trustedRoots: pkis.map(\.root),
                apps: [AppStoreApp(bundleId: Self.bundleId, environments: [.sandbox])],
                chainCacheCapacity: 2
            )
        )
        func cached(_ index: Int) async throws -> Bool {
            try await verifier.verifyTransaction(pkis[index].signTransaction(Self.transaction()), now: fixedNow).facts.usedCachedChain
        }
        #expect(try await cached(0) == false)
        #expect(try await cached(1) == false)
        #expect(try await cached(0) == true)
        #expect(try await cached(2) == false)  // evicts pki 1, the least recently used
        #expect(try await cached(0) == true)
        #expect(try await cached(1) == false)
    }

    @Test func unsignedLocalTestingTransactionIsAcceptedOnlyWhenEnabled() async throws {
        let pki = try TestPKI()
        let jws = try pki.signTransaction(Self.transaction(environment: .localTesting))
        let strict = try pki.makeVerifier(bundleId: Self.bundleId)
        #expect(await errorCode { _ = try await strict.verifyTransaction(jws, now: fixedNow) } == "environment_not_accepted")
        let relaxed = try SignedDataVerifier(
            configuration: pki.verifierConfiguration(apps: [AppStoreApp(bundleId: Self.bundleId, environments: [.sandbox], allowsUnsignedLocalEnvironments: true)])
        )
        let result = try await relaxed.verifyTransaction(jws, now: fixedNow)
        #expect(result.facts.isSignatureVerified == false)
    }

    @Test func notificationBodyThatIsNotJSONWithASignedPayloadIsMalformed() async throws {
        let pki = try TestPKI()
        let verifier = try pki.makeVerifier(bundleId: Self.bundleId)
        for body in ["", "not json", "[]", "{}", "{\"signedPayload\":42}"] {
            let code = await errorCode { _ = try await verifier.verifyNotificationBody(Data(body.utf8), now: fixedNow) }
            #expect(code == "malformed_body", "body \(body)")
        }
    }

    @Test func productionAppWithoutAppAppleIdIsAConfigurationError() throws {
        let pki = try TestPKI()
        #expect(throws: AppStoreError.self) {
            _ = try pki.makeVerifier(bundleId: Self.bundleId, environments: [.production])
        }
    }

    @Test func verifierRejectsDuplicateAppsAndNoRoots() throws {
        let app = AppStoreApp(bundleId: Self.bundleId, environments: [.sandbox])
        #expect(throws: AppStoreError.self) { _ = try SignedDataVerifier(configuration: .init(trustedRoots: [], apps: [app])) }
        let pki = try TestPKI()
        #expect(throws: AppStoreError.self) { _ = try SignedDataVerifier(configuration: pki.verifierConfiguration(apps: [app, app])) }
    }

    @Test func concurrentVerificationsShareOneVerifier() async throws {
        let pki = try TestPKI()
        let verifier = try pki.makeVerifier(bundleId: Self.bundleId)
        let tokens = try (0..<32).map { try pki.signTransaction(Self.transaction(String($0))) }
        let ids = try await withThrowingTaskGroup(of: String?.self) { group in
            for token in tokens {
                group.addTask { try await verifier.verifyTransaction(token, now: fixedNow).payload.transactionId }
            }
            var ids: Set<String> = []
            for try await id in group { if let id { ids.insert(id) } }
            return ids
        }
        #expect(ids.count == 32)
    }
}

extension SignedDataVerifier.Configuration {
    func adding(root: X509.Certificate) -> Self {
        var copy = self
        copy.trustedRoots.append(root)
        return copy
    }
}

/// The `AppStoreTesting` conveniences other targets' tests rely on.
@Suite struct AppStoreTestingConvenienceTests {
    @Test func testSubscriptionFactoryProducesAVerifiableLifecycle() async throws {
        let pki = try TestPKI()
        let verifier = try pki.makeVerifier(bundleId: "com.example.app")
        let purchase = JWSTransactionDecodedPayload.testSubscription(transactionId: "1", purchaseDate: 1_735_000_000_000)
        let renewal = JWSTransactionDecodedPayload.testSubscription(
            transactionId: "2", originalTransactionId: "1", purchaseDate: 1_737_592_000_000, transactionReason: .renewal
        )
        let notification = try pki.signNotification(
            type: .didRenew, bundleId: "com.example.app", transaction: renewal,
            renewalInfo: .testRenewal(originalTransactionId: "1"), status: .active, signedDate: 1_737_592_000_500
        )
        let first = try await verifier.verifyTransaction(pki.signTransaction(purchase), now: fixedNow)
        let second = try await verifier.verifyNotification(signedPayload: notification, now: fixedNow)
        #expect(first.payload.expiresDate == 1_737_592_000_000)
        #expect(second.transaction?.payload.originalTransactionId == "1")
        #expect(second.transaction?.payload.transactionReason == .renewal)
        #expect(second.renewalInfo?.payload.signedDate == 1_737_592_000_500)
    }

    @Test func appleLikeP384ChainVerifies() async throws {
        let pki = try TestPKI(caCurve: .p384)
        let result = try await pki.makeVerifier(bundleId: "com.example.app")
            .verifyTransaction(pki.signTransaction(.testSubscription(transactionId: "1", purchaseDate: 1_735_000_000_000)), now: fixedNow)
        #expect(result.facts.isSignatureVerified)
    }
}
