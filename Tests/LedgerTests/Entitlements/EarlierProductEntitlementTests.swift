import AppStore
import AppStoreTesting
import Foundation
import Ledger
import Testing

/// An entitlement a chain gave only under an earlier product is reported from the last period that
/// gave it, not from the chain's current one (which does not grant it).
@Suite("Entitlements a chain no longer gives")
struct EarlierProductEntitlementTests {
    typealias H = LedgerHarness

    /// basic.monthly bought at day 0 (to day 30), and Apple's notice at day 10 that it was upgraded away.
    static func buyBasicThenUpgradeItAway(_ h: H) async throws {
        try await h.submit(user: "u1", H.transaction("1000", product: "basic.monthly", purchased: 0, expires: 30), at: 0)
        try await h.notify(.didChangeRenewalPref, .upgrade,
                           transaction: H.transaction("1000", product: "basic.monthly", purchased: 0, expires: 30, signed: 10, revoked: 10, upgraded: true),
                           at: 10)
    }

    /// `basic.monthly` renews into `pro.monthly` at day 30: `basic` ended with its last period.
    @Test func aProductChangeAtRenewalReportsTheLastPeriodThatGaveIt() async throws {
        try await H.run { h in
            try await h.submit(
                user: "u1", H.transaction("1000", product: "basic.monthly", purchased: 0, expires: 30),
                renewal: H.renewal(renewsTo: "pro.monthly", product: "basic.monthly", signed: 10), at: 10
            )
            try await h.notify(.didRenew, transaction: H.transaction("1001", product: "pro.monthly", purchased: 30, expires: 60),
                               renewal: H.renewal(renewsTo: "pro.monthly", signed: 30), at: 30)
            let basic = try #require(try await h.entitlement("basic", of: "u1", at: 45))
            #expect(basic.status == "expired" && !basic.active)
            #expect(basic.productId == "basic.monthly")
            #expect(basic.expiresAt == Day.date(30))
            #expect(!basic.willRenew && basic.renewsToProductId == nil)
            #expect(basic.purchasedAt == Day.date(0))
            let pro = try #require(try await h.entitlement("pro", of: "u1", at: 45))
            #expect(pro.active && pro.productId == "pro.monthly" && pro.expiresAt == Day.date(60))
        }
    }

    /// An upgrade at day 10 ends the old period then, and it is not a refund.
    @Test func anUpgradeEndsTheOldEntitlementAtTheUpgrade() async throws {
        try await H.run { h in
            try await Self.buyBasicThenUpgradeItAway(h)
            try await h.notify(.didChangeRenewalPref, .upgrade, transaction: H.transaction("1001", product: "pro.monthly", purchased: 10, expires: 40), at: 10)
            let basic = try #require(try await h.entitlement("basic", of: "u1", at: 20))
            #expect(basic.status == "expired")
            #expect(basic.expiresAt == Day.date(10))
            #expect(basic.revokedAt == nil && basic.revocationReason == nil)
            #expect(try await h.entitlement("pro", of: "u1", at: 20)?.active == true)
        }
    }

    /// A refunded earlier period is reported as refunded, with its own revocation.
    @Test func aRefundedEarlierPeriodIsReportedRefunded() async throws {
        try await H.run { h in
            try await h.submit(user: "u1", H.transaction("1000", product: "basic.monthly", purchased: 0, expires: 30), at: 0)
            try await h.notify(.refund, transaction: H.transaction("1000", product: "basic.monthly", purchased: 0, expires: 30, signed: 20, revoked: 20), at: 20)
            try await h.notify(.subscribed, .resubscribe, transaction: H.transaction("1001", product: "pro.monthly", purchased: 25, expires: 55), at: 25)
            let basic = try #require(try await h.entitlement("basic", of: "u1", at: 30))
            #expect(basic.status == "refunded")
            #expect(basic.revokedAt == Day.date(20))
            #expect(basic.productId == "basic.monthly")
            // Its own term, as a refunded subscription shows, not cut at the next purchase.
            #expect(basic.expiresAt == Day.date(30))
        }
    }

    /// The upgraded period alone (its new transaction not yet known) ended at the upgrade: expired,
    /// not refunded.
    @Test func anUpgradedPeriodAloneIsNotARefund() async throws {
        try await H.run { h in
            try await Self.buyBasicThenUpgradeItAway(h)
            let chain = try #require(try await h.chain(at: 11))
            #expect(chain.status == .expired)
            #expect(chain.expiresAt == Day.date(10))
            #expect(chain.revokedAt == nil && chain.revocationReason == nil)
        }
    }

    /// limitations.md: marked upgraded without a revocation date, and the new transaction not yet
    /// known, the period keeps its status; the new transaction, once recorded, ends it when it was bought.
    @Test func anUpgradedMarkWithoutARevocationDateWaitsForTheNewTransaction() async throws {
        try await H.run { h in
            try await h.submit(user: "u1", H.transaction("1000", product: "basic.monthly", purchased: 0, expires: 30), at: 0)
            try await h.notify(.didChangeRenewalPref, .upgrade,
                               transaction: H.transaction("1000", product: "basic.monthly", purchased: 0, expires: 30, signed: 10, upgraded: true),
                               at: 10)
            #expect(try await h.chain(at: 11)?.status == .active)
            try await h.notify(.didChangeRenewalPref, .upgrade, transaction: H.transaction("1001", product: "pro.monthly", purchased: 10, expires: 40), at: 12)
            let basic = try #require(try await h.entitlement("basic", of: "u1", at: 13))
            #expect(basic.status == "expired" && !basic.active)
            #expect(basic.expiresAt == Day.date(10))
            #expect(try await h.entitlement("pro", of: "u1", at: 13)?.active == true)
        }
    }

    /// A submission without renewal info says nothing of the next period: no renewal, no product.
    @Test func withoutRenewalInfoNothingIsSaidOfTheNextPeriod() async throws {
        try await H.run { h in
            try await h.submit(user: "u1", H.transaction("1000", purchased: 0, expires: 30), at: 0)
            let pro = try #require(try await h.entitlement("pro", of: "u1", at: 1))
            #expect(!pro.willRenew && pro.renewsToProductId == nil)
            try await h.notify(.didChangeRenewalStatus, .autoRenewEnabled, renewal: H.renewal(signed: 2), at: 2)
            let renewing = try #require(try await h.entitlement("pro", of: "u1", at: 3))
            #expect(renewing.willRenew && renewing.renewsToProductId == "pro.monthly")
        }
    }

    /// Renewal info for another subscription than the submitted transaction's is refused.
    @Test func renewalInfoOfAnotherSubscriptionIsRefused() async throws {
        try await H.run { h in
            try await h.expectRefusal(.malformedBody) {
                try await h.submit(user: "u1", H.transaction("1000", purchased: 0, expires: 30), renewal: H.renewal(original: "9000", signed: 0), at: 0)
            }
        }
    }

    /// A signed transaction sent as `signed_renewal_info` (same subscription, same environment)
    /// decodes as renewal info stating nothing: refused as the transaction it is, not recorded as
    /// renewal off. Renewal info that states no auto-renew and is no other kind is refused too.
    @Test func aTransactionSentAsRenewalInfoIsRefused() async throws {
        try await H.run { h in
            let jws = try h.pki.signTransaction(H.transaction("1000", purchased: 0, expires: 30, signed: 1))
            let before = try await h.store.eventCount()
            let error = await #expect(throws: AppStoreError.self) {
                _ = try await h.ledger.submitTransaction(userId: "u1", signedTransaction: jws, signedRenewalInfo: jws, context: .init(source: "test"))
            }
            #expect(error?.code == .invalidPayload)
            #expect(error?.message == "the JWS holds a transaction, not renewal info (it has transactionId)")
            #expect(try await h.store.eventCount() == before)
            var silent = H.renewal(signed: 1)
            silent.autoRenewStatus = nil
            try await h.expectRefusal(.malformedBody) {
                _ = try await h.ledger.submitTransaction(userId: "u1", signedTransaction: jws, signedRenewalInfo: try h.pki.signRenewalInfo(silent), context: .init(source: "test"))
            }
            _ = try await h.ledger.submitTransaction(userId: "u1", signedTransaction: jws, signedRenewalInfo: nil, context: .init(source: "test"))
            #expect(try await h.store.eventCount() > 0)
        }
    }

    /// On an upgrade Apple usually sends only the new transaction: the old period then ends when the
    /// new one was bought, though its own record still shows its full term.
    @Test func anUpgradeKnownOnlyByItsNewTransactionEndsTheOldPeriodThen() async throws {
        try await H.run { h in
            try await h.submit(user: "u1", H.transaction("1000", product: "basic.monthly", purchased: 0, expires: 30), at: 0)
            try await h.notify(.didChangeRenewalPref, .upgrade, transaction: H.transaction("1001", product: "pro.monthly", purchased: 10, expires: 40), at: 10)
            let basic = try #require(try await h.entitlement("basic", of: "u1", at: 20))
            #expect(basic.status == "expired" && !basic.active)
            #expect(basic.expiresAt == Day.date(10))
        }
    }
}
