import AppStore
import AppStoreTesting
import Foundation
import Ledger
import Testing

/// Evaluating a past moment with everything known now: what Apple dated after that moment (a later
/// purchase, renewal info, a refund) must not rewrite it. Each test asks only after the later events
/// were ingested, which is what an auditor does.
@Suite("Entitlements at a past moment")
struct PointInTimeTests {
    typealias H = LedgerHarness

    @Test func aMomentBeforeThePurchaseShowsNothing() async throws {
        try await H.run { h in
            try await h.submit(user: "u1", H.transaction("1000", purchased: 10, expires: 40), renewal: H.renewal(signed: 10), at: 10)
            let before = try await h.ledger.entitlements(userId: "u1", at: Day.date(5))
            #expect(before.entitlements.isEmpty)
            #expect(before.subscriptions.isEmpty)
            #expect(try await h.chain(at: 5) == nil)
            #expect(try await h.entitlement("pro", of: "u1", at: 11)?.active == true)
        }
    }

    /// Apple dates a purchase by its own clock: one dated half a minute ahead of ours still shows at
    /// once, and one dated two minutes ahead does not yet.
    @Test func aPurchaseDatedSecondsAheadOfOurClockCountsAtOnce() async throws {
        try await H.run { h in
            let ahead = 10 + 30.0 / 86_400
            try await h.submit(user: "u1", H.transaction("1000", purchased: ahead, expires: 40), at: 10)
            #expect(try await h.entitlement("pro", of: "u1", at: 10)?.active == true)
            #expect(try await h.chain(at: 10 - 90.0 / 86_400) == nil)
        }
    }

    @Test func billingRetryStaysVisibleAfterTheRecoveryArrives() async throws {
        try await H.run { h in
            try await h.submit(user: "u1", H.transaction("1000", purchased: 0, expires: 30), renewal: H.renewal(signed: 0), at: 0)
            try await h.notify(.didFailToRenew, transaction: H.transaction("1000", purchased: 0, expires: 30, signed: 30),
                               renewal: H.renewal(billingRetry: true, signed: 30), at: 30)
            try await h.notify(.didRenew, .billingRecovery, transaction: H.transaction("1001", purchased: 33, expires: 63),
                               renewal: H.renewal(signed: 33), at: 33)
            let retry = try #require(try await h.chain(at: 31))
            #expect(retry.status == .billingRetry)
            #expect(retry.latestTransactionId == "1000")
            #expect(retry.expiresAt == Day.date(30))
            #expect(try await h.entitlement("pro", of: "u1", at: 31)?.active == false)
            let recovered = try #require(try await h.chain(at: 34))
            #expect(recovered.status == .active)
            #expect(recovered.latestTransactionId == "1001")
            // Before the failure, the first period was plainly active and renewing.
            let first = try #require(try await h.chain(at: 20))
            #expect(first.status == .active)
            #expect(first.willRenew)
        }
    }

    @Test func theGracePeriodStaysVisibleAfterTheRecoveryArrives() async throws {
        try await H.run { h in
            try await h.submit(user: "u1", H.transaction("1000", purchased: 0, expires: 30), at: 0)
            try await h.notify(.didFailToRenew, .gracePeriod, transaction: H.transaction("1000", purchased: 0, expires: 30, signed: 30),
                               renewal: H.renewal(billingRetry: true, graceUntil: 36, signed: 30), at: 30)
            try await h.notify(.didRenew, .billingRecovery, transaction: H.transaction("1001", purchased: 34, expires: 64),
                               renewal: H.renewal(signed: 34), at: 34)
            let grace = try #require(try await h.entitlement("pro", of: "u1", at: 32))
            #expect(grace.active)
            #expect(grace.status == "grace_period")
            #expect(grace.gracePeriodExpiresAt == Day.date(36))
            #expect(grace.expiresAt == Day.date(30))
            let after = try #require(try await h.entitlement("pro", of: "u1", at: 40))
            #expect(after.status == "active")
            #expect(after.gracePeriodExpiresAt == nil)
        }
    }

    /// Renewal info describes the moment Apple signed it: before the first, nothing was known.
    @Test func renewalInfoCountsFromWhenAppleSignedIt() async throws {
        try await H.run { h in
            try await h.submit(user: "u1", H.transaction("1000", purchased: 0, expires: 30), at: 0)
            try await h.notify(.didChangeRenewalStatus, .autoRenewEnabled, renewal: H.renewal(autoRenew: true, signed: 5), at: 5)
            try await h.notify(.didChangeRenewalStatus, .autoRenewDisabled, renewal: H.renewal(autoRenew: false, signed: 10), at: 10)
            #expect(try await h.chain(at: 3)?.willRenew == false)
            #expect(try await h.chain(at: 6)?.willRenew == true)
            #expect(try await h.chain(at: 11)?.willRenew == false)
        }
    }

    @Test func aRefundCountsFromItsDate() async throws {
        try await H.run { h in
            try await h.submit(user: "u1", H.transaction("1000", purchased: 0, expires: 30), at: 0)
            try await h.notify(.refund, transaction: H.transaction("1000", purchased: 0, expires: 30, signed: 20, revoked: 20, revocationType: .refundFull), at: 20)
            let before = try #require(try await h.entitlement("pro", of: "u1", at: 10))
            #expect(before.active)
            #expect(before.status == "active")
            #expect(before.revokedAt == nil)
            #expect(before.revocationReason == nil)
            let after = try #require(try await h.entitlement("pro", of: "u1", at: 21))
            #expect(after.status == "refunded")
            #expect(after.revokedAt == Day.date(20))
        }
    }

    @Test func anUpgradeDoesNotRewriteTheTimeBeforeIt() async throws {
        try await H.run { h in
            try await h.submit(user: "u1", H.transaction("1000", product: "basic.monthly", purchased: 0, expires: 30), at: 0)
            try await h.notify(.didChangeRenewalPref, .upgrade, transaction: H.transaction("1001", product: "pro.monthly", purchased: 10, expires: 40),
                               renewal: H.renewal(renewsTo: "pro.monthly", product: "pro.monthly", signed: 10), at: 10)
            try await h.notify(.didChangeRenewalPref, .upgrade, transaction: H.transaction("1000", product: "basic.monthly", purchased: 0, expires: 30, signed: 11, upgraded: true), at: 11)
            let before = try #require(try await h.chain(at: 5))
            #expect(before.productId == "basic.monthly")
            #expect(before.status == .active)
            #expect(try await h.entitlement("basic", of: "u1", at: 5)?.active == true)
            // Pro was not yet bought: it is not an entitlement the user "ever had" at day 5.
            #expect(try await h.entitlement("pro", of: "u1", at: 5) == nil)
            #expect(try await h.chain(at: 12)?.productId == "pro.monthly")
            #expect(try await h.entitlement("basic", of: "u1", at: 12)?.active == false)
        }
    }

    /// `revocationType` arrived with App Store Server Notifications 2.20; before it, a REVOKE of a
    /// family-shared transaction carries only the revocation date.
    @Test func aFamilySharedRevocationWithoutARevocationTypeIsRevokedNotRefunded() async throws {
        try await H.run { h in
            try await h.submit(user: "kid", H.transaction("1000", purchased: 0, expires: 30, family: true), at: 0)
            try await h.notify(.revoke, transaction: H.transaction("1000", purchased: 0, expires: 30, signed: 3, revoked: 3, family: true), at: 3)
            let revoked = try #require(try await h.entitlement("pro", of: "kid", at: 4))
            #expect(!revoked.active)
            #expect(revoked.status == "revoked")
            // The purchaser's own refund stays a refund.
            try await h.submit(user: "parent", H.transaction("2000", original: "2000", purchased: 0, expires: 30), at: 0)
            try await h.notify(.refund, transaction: H.transaction("2000", original: "2000", purchased: 0, expires: 30, signed: 5, revoked: 5), at: 5)
            #expect(try await h.entitlement("pro", of: "parent", at: 6)?.status == "refunded")
        }
    }

    @Test func aGrantRevokedTwiceEndedAtTheFirstRevokeInEitherOrder() {
        let grant = ManualGrant(grantId: "g", userId: "u", entitlement: "pro", expiresAt: nil, reason: "promo", at: 0)
        let first = ManualGrant(grantId: "g", userId: "u", entitlement: "", expiresAt: nil, reason: "a", at: 10)
        let second = ManualGrant(grantId: "g", userId: "u", entitlement: "", expiresAt: nil, reason: "b", at: 20)
        var inOrder = UserState(userId: "u")
        inOrder.grant(grant)
        inOrder.revoke(first)
        inOrder.revoke(second)
        var reversed = UserState(userId: "u")
        reversed.grant(grant)
        reversed.revoke(second)
        reversed.revoke(first)
        #expect(inOrder.grants["g"]?.revokedAt == 10)
        #expect(reversed == inOrder)
    }
}
