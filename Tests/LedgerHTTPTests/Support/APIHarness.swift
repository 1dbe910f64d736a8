import AppStore
import AppStoreTesting
import EventStore
import EventStoreTesting
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Ledger
import LedgerHTTP
import Logging
import NIOCore
import Prometheus
import Synchronization
import Testing

/// The real server on a loopback port over a fresh store, a test PKI standing in for Apple's, and a
/// local fake of Apple's verifyReceipt.
struct APIHarness: Sendable {
    static let bundleId = "com.example.app"
    /// The app's own shared secret: a V1 notification's password, and the secret verifyReceipt gets
    /// for a receipt submitted with the app's `bundle_id`.
    static let appSecret = "s3cret"
    /// verifyReceipt's default secret (`apple.verify_receipt.shared_secret_env`, meant to be the
    /// account's primary one), sent for a receipt that names no app. It differs from the app's, so
    /// a test can tell which one went.
    static let primarySecret = "primary-secret"
    static let ingestKey = "sl_backend_secret"
    static let readKey = "sl_reader_secret"
    static let adminKey = "sl_admin_secret"
    /// A key that may only ingest, as a webhook relay or an app's purchase endpoint would hold.
    static let ingestOnlyKey = "sl_relay_secret"

    let client: any TestClientProtocol
    let pki: TestPKI
    let store: any EventStore
    let clock: ManualClock
    let fixture: StoreFixture
    /// What the fake verifyReceipt has been sent.
    let verifyReceipt: FakeVerifyReceipt.Recorder

    static let pki: Result<TestPKI, any Error> = Result { try TestPKI() }

    static func run(
        _ dialect: StorageDialect,
        storePath: String? = nil,
        policy: LedgerConfiguration.LinkPolicy = .transfer,
        environments: Set<AppStoreEnvironment> = [.sandbox, .production],
        _ body: @Sendable @escaping (APIHarness) async throws -> Void
    ) async throws {
        let pki = try Self.pki.get()
        let clock = ManualClock(Day.date(0))
        // Apple takes either secret: the app's own, and the account's primary one.
        try await FakeVerifyReceipt.run(accepting: [appSecret, primarySecret]) { verifyReceiptURL, verifyReceipt in
            try await withFreshStore(dialect, now: { clock.now() }) { (fixture: StoreFixture) async throws in
                let app = try Self.application(
                    store: fixture.store, pki: pki, clock: clock, verifyReceiptURL: verifyReceiptURL, policy: policy, environments: environments,
                    metrics: Self.metricsRegistry()
                )
                try await app.test(.live) { client in
                    try await body(APIHarness(
                        client: client, pki: pki, store: fixture.store, clock: clock, fixture: fixture, verifyReceipt: verifyReceipt
                    ))
                }
            }
        }
    }

    /// A registry for `/metrics`, as `serve` serves it, holding one counter so the route answers a
    /// body (which a HEAD must leave out).
    static func metricsRegistry() -> PrometheusCollectorRegistry {
        let registry = PrometheusCollectorRegistry()
        registry.makeCounter(name: "harness_started_total").increment()
        return registry
    }

    static func application(
        store: any EventStore, pki: TestPKI, clock: ManualClock, verifyReceiptURL: String,
        policy: LedgerConfiguration.LinkPolicy = .transfer, environments: Set<AppStoreEnvironment> = [.sandbox, .production],
        idleTimeout: Duration = .seconds(30), requestTimeout: Duration = .seconds(60),
        logger: Logger = TestDatabases.logger, metrics: PrometheusCollectorRegistry? = nil,
        adjusting adjust: (inout LedgerApplication.Settings) -> Void = { _ in },
        onServerRunning: (@Sendable (Int) async -> Void)? = nil
    ) throws -> some ApplicationProtocol {
        let verifier = try pki.makeVerifier(bundleId: bundleId, appAppleId: 1_234_567_890, environments: environments)
        let receipts = VerifyReceiptClient(configuration: .init(
            productionURL: verifyReceiptURL + "/production", sandboxURL: verifyReceiptURL + "/sandbox",
            sharedSecret: primarySecret, maximumAttempts: 2, initialBackoff: .milliseconds(1), maximumBackoff: .milliseconds(2),
            requestTimeout: .seconds(5)
        ))
        let ledger = SubscriptionLedger(
            store: store, verifier: verifier, receiptValidator: receipts,
            configuration: LedgerConfiguration(
                catalog: ProductCatalog(products: [
                    "pro.monthly": .init(entitlements: ["pro"]), "lifetime.pro": .init(entitlements: ["pro"]),
                    "basic.monthly": .init(entitlements: ["basic"]),
                ]),
                // The client's default is a secret of its own (`hasOwnReceiptSecret`), not the app's;
                // with one app configured, the flag changes no choice of secret here.
                linkPolicy: policy, sharedSecrets: [bundleId: appSecret], hasOwnReceiptSecret: true
            ),
            clock: clock, logger: logger
        )
        let keys = [
            APIKey(name: "backend", scopes: [.read, .ingest], sha256: APIKey.hash(secret: ingestKey)),
            APIKey(name: "reader", scopes: [.read], sha256: APIKey.hash(secret: readKey)),
            APIKey(name: "operator", scopes: [.admin, .read], sha256: APIKey.hash(secret: adminKey)),
            APIKey(name: "relay", scopes: [.ingest], sha256: APIKey.hash(secret: ingestOnlyKey)),
        ]
        // Every other setting keeps the server's own default.
        var settings = LedgerApplication.Settings(host: "127.0.0.1", port: 0, idleTimeout: idleTimeout, requestTimeout: requestTimeout)
        adjust(&settings)
        return LedgerApplication.make(
            settings: settings, store: store, ledger: ledger, keys: keys, clock: clock, metrics: metrics,
            logger: logger, onServerRunning: onServerRunning
        )
    }

    // MARK: Requests

    func request(_ method: HTTPRequest.Method, _ uri: String, key: String? = nil, json: String? = nil, headers extra: HTTPFields = [:]) async throws -> TestResponse {
        var headers = extra
        if let key { headers[.authorization] = "Bearer \(key)" }
        if json != nil { headers[.contentType] = "application/json" }
        return try await client.execute(uri: uri, method: method, headers: headers, body: json.map { ByteBuffer(string: $0) })
    }

    func object(_ response: TestResponse) throws -> [String: Any] {
        (try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any]) ?? [:]
    }

    /// Signs a V2 notification and posts it to the webhook.
    func notify(_ type: NotificationType, _ subtype: NotificationSubtype? = nil, transaction: JWSTransactionDecodedPayload? = nil,
                renewal: JWSRenewalInfoDecodedPayload? = nil, at day: Double, signer: TestPKI? = nil,
                bundleId: String = APIHarness.bundleId, environment: AppStoreEnvironment = .sandbox) async throws -> TestResponse {
        clock.set(Day.date(day))
        let jws = try (signer ?? pki).signNotification(
            type: type, subtype: subtype, bundleId: bundleId, environment: environment,
            transaction: transaction, renewalInfo: renewal, signedDate: Day.apple(day)
        )
        return try await request(.post, "/v1/apple/notifications/v2", json: #"{"signedPayload":"\#(jws)"}"#)
    }

    /// The body of a validly signed V2 notification (a renewal of chain 5000) that the webhook
    /// records when it reads it whole: for tests of half-sent and refused requests, where "nothing
    /// was recorded" must be able to fail.
    static func signedRenewalBody() throws -> String {
        let jws = try pki.get().signNotification(
            type: .didRenew, bundleId: bundleId, environment: .sandbox,
            transaction: transaction("5000", original: "5000", purchased: 0, expires: 30), signedDate: Day.apple(0)
        )
        return #"{"signedPayload":"\#(jws)"}"#
    }

    static func transaction(_ id: String, original: String = "1000", product: String = "pro.monthly", purchased: Double, expires: Double?,
                            signed: Double? = nil, revoked: Double? = nil, revocationType: RevocationType? = nil,
                            type: TransactionType = .autoRenewableSubscription, bundleId: String = APIHarness.bundleId,
                            environment: AppStoreEnvironment = .sandbox, family: Bool = false) -> JWSTransactionDecodedPayload {
        JWSTransactionDecodedPayload(
            originalTransactionId: original, transactionId: id, bundleId: bundleId, productId: product,
            purchaseDate: Day.apple(purchased), originalPurchaseDate: Day.apple(purchased), expiresDate: expires.map(Day.apple),
            quantity: 1, type: type, inAppOwnershipType: family ? .familyShared : .purchased, signedDate: Day.apple(signed ?? purchased),
            revocationReason: revoked == nil ? nil : .other, revocationDate: revoked.map(Day.apple), environment: environment,
            revocationType: revocationType
        )
    }

    /// Submits a signed transaction for a user with the ingest key.
    func submit(user: String, _ transaction: JWSTransactionDecodedPayload, at day: Double) async throws -> TestResponse {
        clock.set(Day.date(day))
        let jws = try pki.signTransaction(transaction)
        return try await request(.post, "/v1/apple/transactions", key: Self.ingestKey, json: #"{"user_id":"\#(user)","signed_transaction":"\#(jws)"}"#)
    }

    /// The user's `pro` entitlement as JSON, evaluated at `day`; nil only from a view that lists no
    /// `pro` (a failed read is an error, not "no entitlement").
    func pro(_ user: String, at day: Double, sourceLocation: SourceLocation = #_sourceLocation) async throws -> [String: Any]? {
        let response = try await request(.get, "/v1/users/\(user)/entitlements?at=\(Day.iso(day))", key: Self.readKey)
        try #require(response.status == .ok, "\(response.status): \(String(buffer: response.body))", sourceLocation: sourceLocation)
        let entitlements = try #require(try object(response)["entitlements"] as? [[String: Any]], "no entitlements list", sourceLocation: sourceLocation)
        return entitlements.first { $0["id"] as? String == "pro" }
    }

    /// The user's events from `GET /v1/users/{user}/events`, read again until there are at least
    /// `count` (or 30 s pass): PostgreSQL holds events back while an older transaction anywhere in
    /// the cluster is open, as the global feed does, so an empty page means "try again".
    func events(of encodedUser: String, atLeast count: Int) async throws -> [[String: Any]] {
        var events: [[String: Any]] = []
        let deadline = ContinuousClock.now + .seconds(30)
        while events.count < count && ContinuousClock.now < deadline {
            events = try object(try await request(.get, "/v1/users/\(encodedUser)/events", key: Self.readKey))["events"] as? [[String: Any]] ?? []
            if events.count < count { try await Task.sleep(for: .milliseconds(20)) }
        }
        return events
    }

    /// Checks a webhook was answered 400 with `code` as problem+json, appended nothing, and left its
    /// refusal as the store's only rejection.
    func expectRefusedAlone(_ response: TestResponse, code: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        #expect(response.status == .badRequest, sourceLocation: sourceLocation)
        #expect(response.headers[.contentType] == "application/problem+json", sourceLocation: sourceLocation)
        #expect(try object(response)["code"] as? String == code, sourceLocation: sourceLocation)
        #expect(try await eventCount() == 0, sourceLocation: sourceLocation)
        #expect(try await store.rejections(limit: 10).map(\.code) == [code], sourceLocation: sourceLocation)
    }

    /// How many events the store holds (waiting out PostgreSQL's reader gate).
    func eventCount() async throws -> Int {
        try await store.eventCount()
    }
}
