import AppStore
import AppStoreTesting
import EventStoreTesting
import Foundation
@testable import Ledger
import Testing

/// A product missing from `products` grants nothing; the ledger says so once, so a typo in the
/// configuration does not leave paying users without access in silence.
struct UnconfiguredProductTests {
    @Test func aProductMissingFromTheCatalogIsRecordedWithoutEntitlementsAndWarnedAboutOnce() async throws {
        let log = CapturedLog()
        try await LedgerHarness.run(logger: log.logger) { h in
            let view = try await h.submit(user: "u1", LedgerHarness.transaction("1000", product: "pro.weekly", purchased: 0, expires: 7), at: 0)
            // Recorded as a subscription, granting nothing.
            #expect(view.entitlements.isEmpty)
            #expect(view.subscriptions.map(\.productId) == ["pro.weekly"])
            try await h.submit(user: "u1", LedgerHarness.transaction("1001", product: "pro.weekly", purchased: 7, expires: 14), at: 7)
            try await h.submit(user: "u2", LedgerHarness.transaction("2000", original: "2000", purchased: 0, expires: 30), at: 7)
            let warnings = log.lines.filter { $0.hasPrefix("warning") && $0.contains("does not configure") }
            #expect(warnings.count == 1, "\(log.lines)")
            #expect(warnings.first?.contains("product_id=pro.weekly") == true, "\(warnings)")
            #expect(warnings.first?.contains("original_transaction_id=1000") == true, "\(warnings)")
            // Entitlements are evaluated when read: a server that lists the product grants from what
            // is already recorded.
            var catalog = LedgerHarness.catalog
            catalog.products["pro.weekly"] = .init(entitlements: ["pro"])
            let fixed = SubscriptionLedger(
                store: h.store, verifier: try SignedDataVerifier(configuration: h.pki.verifierConfiguration(apps: [
                    AppStoreApp(bundleId: LedgerHarness.bundleId, appAppleId: 1_234_567_890, environments: [.sandbox, .production]),
                ])),
                configuration: LedgerConfiguration(catalog: catalog), clock: h.clock
            )
            let granted = try await fixed.entitlements(userId: "u1", at: Day.date(10))
            #expect(granted.entitlements.map(\.id) == ["pro"])
            #expect(granted.entitlements.first?.active == true)
        }
    }

    /// A subscription set to renew into a product `products` lacks is warned about when that is
    /// learnt, not first at the renewal, when its user loses access; once per product.
    @Test func aRenewalIntoAProductMissingFromTheCatalogIsWarnedAboutOnce() async throws {
        let log = CapturedLog()
        try await LedgerHarness.run(logger: log.logger) { h in
            let purchase = LedgerHarness.transaction("1000", purchased: 0, expires: 30)
            let view = try await h.submit(user: "u1", purchase, renewal: LedgerHarness.renewal(renewsTo: "pro.yearly.v2", signed: 0), at: 0)
            #expect(view.entitlements.first?.active == true)
            try await h.submit(user: "u1", purchase, renewal: LedgerHarness.renewal(renewsTo: "pro.yearly.v2", signed: 1), at: 1)
            try await h.submit(user: "u1", purchase, renewal: LedgerHarness.renewal(renewsTo: "pro.yearly", signed: 2), at: 2)
            let warnings = log.lines.filter { $0.hasPrefix("warning") && $0.contains("does not configure") }
            #expect(warnings.count == 1, "\(log.lines)")
            #expect(warnings.first?.contains("will renew into a product") == true, "\(warnings)")
            #expect(warnings.first?.contains("product_id=pro.yearly.v2") == true, "\(warnings)")
            #expect(warnings.first?.contains("original_transaction_id=1000") == true, "\(warnings)")
        }
    }

    /// V1 bodies and unsigned local data can name any product: past the limit the warnings stop,
    /// with one line saying so, and the set of products stops growing.
    @Test func warningsStopAfterTheLimitWithOneLineSayingSo() {
        let log = CapturedLog()
        let products = UnconfiguredProducts(catalog: LedgerHarness.catalog)
        for index in 0..<(UnconfiguredProducts.limit + 5) {
            let transaction = TransactionObservation(
                transactionId: "\(index)", originalTransactionId: "\(index)", productId: "unknown.\(index)",
                type: "Auto-Renewable Subscription", purchaseDate: 0, environment: "Sandbox", assertedAt: 0
            )
            products.check(AppleFact(raw: "{}", transactions: [transaction]), logger: log.logger)
        }
        products.check(AppleFact(raw: "{}", transactions: []), logger: log.logger)
        #expect(log.lines.filter { $0.contains("product_id=unknown.") }.count == UnconfiguredProducts.limit)
        #expect(log.lines.filter { $0.contains("no more are named until a restart") }.count == 1)
        #expect(log.lines.count == UnconfiguredProducts.limit + 1)
    }
}
