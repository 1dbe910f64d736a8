import AppStore
import AppStoreTesting
import EventStore
import EventStoreTesting
import Foundation
import Ledger
import Logging
import Synchronization
import Testing

/// A ledger on a fresh SQLite store, with a test PKI standing in for Apple's, and helpers that sign
/// transactions, renewal infos and notifications the way Apple does.
struct LedgerHarness: Sendable {
    static let bundleId = "com.example.app"
    static let catalog = ProductCatalog(products: [
        "pro.monthly": .init(entitlements: ["pro"]),
        "pro.yearly": .init(entitlements: ["pro"]),
        "basic.monthly": .init(entitlements: ["basic"]),
        "lifetime.pro": .init(entitlements: ["pro"]),
        "pass.30days": .init(entitlements: ["pro"], durationDays: 30),
        "coins.100": .init(entitlements: []),
    ])

    let pki: TestPKI
    let ledger: SubscriptionLedger
    let store: any EventStore
    let clock: ManualClock
    let receipts: FakeReceiptValidator
    let fixture: StoreFixture

    /// Runs `body` with a fresh harness on a fresh store (SQLite unless told otherwise). The store's
    /// clock runs `storeClockLead` seconds ahead of the ledger's, as two reads of a real clock differ.
    static func run(
        dialect: StorageDialect = .sqlite,
        policy: LedgerConfiguration.LinkPolicy = .transfer,
        sharedSecrets: [String: String] = [bundleId: "s3cret"],
        hasOwnReceiptSecret: Bool = false,
        apps: [AppStoreApp] = [AppStoreApp(bundleId: bundleId, appAppleId: 1_234_567_890, environments: [.sandbox, .production])],
        storeClockLead: TimeInterval = 0,
        previousOwnerRestarts: Int = 3,
        logger: Logger = TestDatabases.logger,
        _ body: @Sendable @escaping (LedgerHarness) async throws -> Void
    ) async throws {
        let clock = ManualClock(Day.date(0))
        let pki = try SharedPKI.value.get()
        let verifier = try SignedDataVerifier(configuration: pki.verifierConfiguration(apps: apps))
        try await withFreshStore(dialect, now: { clock.now().addingTimeInterval(storeClockLead) }) { (fixture: StoreFixture) async throws in
            let receipts = FakeReceiptValidator()
            let ledger = SubscriptionLedger(
                store: fixture.store, verifier: verifier, receiptValidator: receipts,
                configuration: LedgerConfiguration(
                    catalog: catalog, linkPolicy: policy, sharedSecrets: sharedSecrets, hasOwnReceiptSecret: hasOwnReceiptSecret,
                    previousOwnerRestarts: previousOwnerRestarts
                ),
                clock: clock, logger: logger
            )
            try await body(LedgerHarness(pki: pki, ledger: ledger, store: fixture.store, clock: clock, receipts: receipts, fixture: fixture))
        }
    }

    /// A transaction payload with the fields a lifecycle needs.
    static func transaction(
        _ id: String,
        original: String = "1000",
        product: String = "pro.monthly",
        purchased: Double,
        expires: Double? = nil,
        type: TransactionType = .autoRenewableSubscription,
        signed: Double? = nil,
        revoked: Double? = nil,
        revocationType: RevocationType? = nil,
        upgraded: Bool? = nil,
        family: Bool = false,
        token: String? = nil,
        offer: OfferType? = nil
    ) -> JWSTransactionDecodedPayload {
        JWSTransactionDecodedPayload(
            originalTransactionId: original, transactionId: id, bundleId: bundleId, productId: product,
            purchaseDate: Day.apple(purchased), originalPurchaseDate: Day.apple(purchased),
            expiresDate: expires.map(Day.apple), quantity: 1, type: type, appAccountToken: token,
            inAppOwnershipType: family ? .familyShared : .purchased, signedDate: Day.apple(signed ?? purchased),
            revocationReason: revoked == nil ? nil : .other, revocationDate: revoked.map(Day.apple),
            isUpgraded: upgraded, offerType: offer, environment: .sandbox,
            revocationType: revocationType
        )
    }

    /// A renewal info payload.
    static func renewal(
        original: String = "1000",
        autoRenew: Bool = true,
        renewsTo: String = "pro.monthly",
        product: String = "pro.monthly",
        billingRetry: Bool = false,
        graceUntil: Double? = nil,
        signed: Double
    ) -> JWSRenewalInfoDecodedPayload {
        JWSRenewalInfoDecodedPayload(
            originalTransactionId: original, autoRenewProductId: renewsTo, productId: product,
            autoRenewStatus: autoRenew ? .on : .off, isInBillingRetryPeriod: billingRetry,
            gracePeriodExpiresDate: graceUntil.map(Day.apple), signedDate: Day.apple(signed), environment: .sandbox
        )
    }

    /// Signs and ingests a V2 notification; returns the ingestion result.
    @discardableResult
    func notify(
        _ type: NotificationType,
        _ subtype: NotificationSubtype? = nil,
        transaction: JWSTransactionDecodedPayload? = nil,
        renewal: JWSRenewalInfoDecodedPayload? = nil,
        at day: Double
    ) async throws -> IngestResult {
        clock.set(Day.date(day))
        let jws = try pki.signNotification(
            type: type, subtype: subtype, bundleId: Self.bundleId, environment: .sandbox,
            transaction: transaction, renewalInfo: renewal, signedDate: Day.apple(day)
        )
        return try await ledger.ingestNotificationV2(body: try TestPKI.notificationBody(signedPayload: jws), context: IngestContext(source: "test"))
    }

    /// Signs a transaction and submits it for a user, as a client would.
    @discardableResult
    func submit(user: String, _ transaction: JWSTransactionDecodedPayload, renewal: JWSRenewalInfoDecodedPayload? = nil, at day: Double) async throws -> UserEntitlements {
        clock.set(Day.date(day))
        return try await ledger.submitTransaction(
            userId: user, signedTransaction: try pki.signTransaction(transaction),
            signedRenewalInfo: try renewal.map(pki.signRenewalInfo), context: IngestContext(source: "test")
        ).entitlements
    }

    /// Expects `body` to throw a ledger error with `code` and to leave the store as it was.
    func expectRefusal(
        _ code: LedgerError.Code, sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> Void
    ) async throws {
        let before = try await store.eventCount()
        do {
            try await body()
            Issue.record("expected a refusal with \(code), got none", sourceLocation: sourceLocation)
        } catch let error as LedgerError {
            #expect(error.code == code, "\(error.message)", sourceLocation: sourceLocation)
        }
        #expect(try await store.eventCount() == before, "a refused input changed the store", sourceLocation: sourceLocation)
    }

    /// The user's entitlement `id` evaluated at `day`.
    func entitlement(_ id: String, of user: String, at day: Double) async throws -> EntitlementStatus? {
        try await ledger.entitlements(userId: user, at: Day.date(day)).entitlements.first { $0.id == id }
    }

    /// The chain's evaluation at `day`.
    func chain(_ original: String = "1000", at day: Double) async throws -> ChainEvaluation? {
        try await ledger.chain(originalTransactionId: original, at: Day.date(day))
    }
}

/// One test PKI for the whole run: generating keys per test is wasted time.
enum SharedPKI {
    static let value: Result<TestPKI, any Error> = Result { try TestPKI() }
}
