import AppStore
import AppStoreTesting
import EventStore
import EventStoreTesting
import Foundation
import Ledger
import Testing

/// Each App Store lifecycle through real signed notifications (test PKI), evaluated at explicit times.
@Suite("Subscription lifecycles through signed notifications")
struct SubscriptionLifecycleTests {
    typealias H = LedgerHarness

    @Test func initialBuyIsActiveUntilExpiryThenExpired() async throws {
        try await H.run { h in
            try await h.submit(user: "u1", H.transaction("1000", purchased: 0, expires: 30), renewal: H.renewal(signed: 0), at: 0)
            let active = try #require(try await h.entitlement("pro", of: "u1", at: 1))
            #expect(active.active)
            #expect(active.status == "active")
            #expect(active.productId == "pro.monthly")
            #expect(active.willRenew)
            #expect(active.expiresAt == Day.date(30))
            #expect(active.originalTransactionId == "1000")
            #expect(active.environment == "Sandbox")
            let later = try #require(try await h.entitlement("pro", of: "u1", at: 31))
            #expect(!later.active)
            #expect(later.status == "expired")
        }
    }

    @Test func renewalExtendsAccessToTheNewPeriod() async throws {
        try await H.run { h in
            try await h.submit(user: "u1", H.transaction("1000", purchased: 0, expires: 30), at: 0)
            try await h.notify(.didRenew, transaction: H.transaction("1001", purchased: 30, expires: 60), renewal: H.renewal(signed: 30), at: 30)
            let chain = try #require(try await h.chain(at: 45))
            #expect(chain.status == .active)
            #expect(chain.latestTransactionId == "1001")
            #expect(chain.expiresAt == Day.date(60))
        }
    }

    @Test func billingRetryThenRecoveryRestoresAccess() async throws {
        try await H.run { h in
            try await h.submit(user: "u1", H.transaction("1000", purchased: 0, expires: 30), at: 0)
            try await h.notify(.didFailToRenew, transaction: H.transaction("1000", purchased: 0, expires: 30, signed: 30),
                               renewal: H.renewal(billingRetry: true, signed: 30), at: 30)
            #expect(try await h.chain(at: 31)?.status == .billingRetry)
            #expect(try await h.entitlement("pro", of: "u1", at: 31)?.active == false)
            try await h.notify(.didRenew, .billingRecovery, transaction: H.transaction("1001", purchased: 33, expires: 63),
                               renewal: H.renewal(signed: 33), at: 33)
            #expect(try await h.chain(at: 34)?.status == .active)
            #expect(try await h.entitlement("pro", of: "u1", at: 34)?.active == true)
        }
    }

    @Test func autoRenewOffKeepsAccessUntilExpiryThenExpires() async throws {
        try await H.run { h in
            try await h.submit(user: "u1", H.transaction("1000", purchased: 0, expires: 30), renewal: H.renewal(signed: 0), at: 0)
            try await h.notify(.didChangeRenewalStatus, .autoRenewDisabled, transaction: H.transaction("1000", purchased: 0, expires: 30, signed: 10),
                               renewal: H.renewal(autoRenew: false, signed: 10), at: 10)
            let off = try #require(try await h.entitlement("pro", of: "u1", at: 11))
            #expect(off.active)
            #expect(!off.willRenew)
            try await h.notify(.expired, .voluntary, transaction: H.transaction("1000", purchased: 0, expires: 30, signed: 30),
                               renewal: H.renewal(autoRenew: false, signed: 30), at: 30)
            #expect(try await h.entitlement("pro", of: "u1", at: 30.5)?.status == "expired")
        }
    }

    @Test func gracePeriodKeepsAccessThenRecovers() async throws {
        try await H.run { h in
            try await h.submit(user: "u1", H.transaction("1000", purchased: 0, expires: 30), at: 0)
            try await h.notify(.didFailToRenew, .gracePeriod, transaction: H.transaction("1000", purchased: 0, expires: 30, signed: 30),
                               renewal: H.renewal(billingRetry: true, graceUntil: 36, signed: 30), at: 30)
            let grace = try #require(try await h.entitlement("pro", of: "u1", at: 32))
            #expect(grace.active)
            #expect(grace.status == "grace_period")
            #expect(grace.gracePeriodExpiresAt == Day.date(36))
            try await h.notify(.didRenew, .billingRecovery, transaction: H.transaction("1001", purchased: 34, expires: 64),
                               renewal: H.renewal(signed: 34), at: 34)
            #expect(try await h.entitlement("pro", of: "u1", at: 40)?.status == "active")
        }
    }

    @Test func graceExpiresIntoBillingRetryThenExpires() async throws {
        try await H.run { h in
            try await h.submit(user: "u1", H.transaction("1000", purchased: 0, expires: 30), at: 0)
            try await h.notify(.didFailToRenew, .gracePeriod, renewal: H.renewal(billingRetry: true, graceUntil: 36, signed: 30), at: 30)
            try await h.notify(.gracePeriodExpired, renewal: H.renewal(billingRetry: true, graceUntil: 36, signed: 36), at: 36)
            #expect(try await h.chain(at: 37)?.status == .billingRetry)
            try await h.notify(.expired, .billingRetry, renewal: H.renewal(autoRenew: false, billingRetry: false, signed: 90), at: 90)
            #expect(try await h.chain(at: 91)?.status == .expired)
            #expect(try await h.entitlement("pro", of: "u1", at: 91)?.active == false)
        }
    }

    @Test func refundOfTheCurrentPeriodEndsAccess() async throws {
        try await H.run { h in
            try await h.submit(user: "u1", H.transaction("1000", purchased: 0, expires: 30), at: 0)
            try await h.notify(.refund, transaction: H.transaction("1000", purchased: 0, expires: 30, signed: 5, revoked: 5, revocationType: .refundFull), at: 5)
            let refunded = try #require(try await h.entitlement("pro", of: "u1", at: 6))
            #expect(!refunded.active)
            #expect(refunded.status == "refunded")
            #expect(refunded.revokedAt == Day.date(5))
            #expect(refunded.revocationReason == 0)
        }
    }

    /// Of two ended subscriptions giving one entitlement, the view reports the one that gave access
    /// last: a subscription refunded on day 5 ended then, before one that expired on day 20, though
    /// its period ran to day 30.
    @Test func aRefundedSubscriptionRanksByItsRefundNotItsExpiry() async throws {
        try await H.run { h in
            try await h.submit(user: "u1", H.transaction("1000", purchased: 0, expires: 30), at: 0)
            try await h.submit(user: "u1", H.transaction("2000", original: "2000", purchased: 0, expires: 20), at: 0)
            try await h.notify(.refund, transaction: H.transaction("1000", purchased: 0, expires: 30, signed: 5, revoked: 5, revocationType: .refundFull), at: 5)
            let reported = try #require(try await h.entitlement("pro", of: "u1", at: 25))
            #expect(reported.originalTransactionId == "2000")
            #expect(reported.status == "expired")
        }
    }

    @Test func refundOfOlderPeriodKeepsCurrentPeriodActive() async throws {
        try await H.run { h in
            try await h.submit(user: "u1", H.transaction("1000", purchased: 0, expires: 30), at: 0)
            try await h.notify(.didRenew, transaction: H.transaction("1001", purchased: 30, expires: 60), at: 30)
            try await h.notify(.refund, transaction: H.transaction("1000", purchased: 0, expires: 30, signed: 40, revoked: 40), at: 40)
            #expect(try await h.entitlement("pro", of: "u1", at: 41)?.status == "active")
        }
    }

    @Test func refundReversedRestoresAccess() async throws {
        try await H.run { h in
            try await h.submit(user: "u1", H.transaction("1000", purchased: 0, expires: 30), at: 0)
            try await h.notify(.refund, transaction: H.transaction("1000", purchased: 0, expires: 30, signed: 5, revoked: 5), at: 5)
            #expect(try await h.entitlement("pro", of: "u1", at: 6)?.status == "refunded")
            try await h.notify(.refundReversed, transaction: H.transaction("1000", purchased: 0, expires: 30, signed: 8), at: 8)
            #expect(try await h.entitlement("pro", of: "u1", at: 9)?.status == "active")
        }
    }

    @Test func familySharedPurchaseThenRevoke() async throws {
        try await H.run { h in
            try await h.submit(user: "kid", H.transaction("1000", purchased: 0, expires: 30, family: true), at: 0)
            let shared = try #require(try await h.entitlement("pro", of: "kid", at: 1))
            #expect(shared.active)
            #expect(shared.ownership == "family_shared")
            try await h.notify(.revoke, transaction: H.transaction("1000", purchased: 0, expires: 30, signed: 3, revoked: 3, revocationType: .familyRevoke, family: true), at: 3)
            let revoked = try #require(try await h.entitlement("pro", of: "kid", at: 4))
            #expect(!revoked.active)
            #expect(revoked.status == "revoked")
        }
    }

    @Test func upgradeSwitchesProductAtOnceEvenThoughTheOldPeriodExpiresLater() async throws {
        try await H.run { h in
            try await h.submit(user: "u1", H.transaction("1000", product: "basic.monthly", purchased: 0, expires: 30), at: 0)
            // Apple sends only the new transaction; the old one's period would still run to day 30.
            try await h.notify(.didChangeRenewalPref, .upgrade, transaction: H.transaction("1001", product: "pro.monthly", purchased: 10, expires: 25),
                               renewal: H.renewal(renewsTo: "pro.monthly", product: "pro.monthly", signed: 10), at: 10)
            let chain = try #require(try await h.chain(at: 11))
            #expect(chain.productId == "pro.monthly")
            #expect(try await h.entitlement("pro", of: "u1", at: 11)?.active == true)
            let basic = try #require(try await h.entitlement("basic", of: "u1", at: 11))
            #expect(!basic.active)
            // When Apple does re-send the old transaction, it is marked upgraded and still ignored.
            try await h.notify(.didChangeRenewalPref, .upgrade, transaction: H.transaction("1000", product: "basic.monthly", purchased: 0, expires: 30, signed: 11, upgraded: true), at: 11)
            #expect(try await h.chain(at: 12)?.productId == "pro.monthly")
        }
    }

    @Test(arguments: [(NotificationSubtype.downgrade, "basic.monthly"), (NotificationSubtype?.none, "pro.yearly")])
    func downgradeAndCrossgradeShowAsRenewsToUntilTheRenewal(_ subtype: NotificationSubtype?, _ next: String) async throws {
        try await H.run { h in
            try await h.submit(user: "u1", H.transaction("1000", purchased: 0, expires: 30), renewal: H.renewal(signed: 0), at: 0)
            try await h.notify(.didChangeRenewalPref, subtype, renewal: H.renewal(renewsTo: next, signed: 5), at: 5)
            let pending = try #require(try await h.entitlement("pro", of: "u1", at: 6))
            #expect(pending.productId == "pro.monthly")
            #expect(pending.renewsToProductId == next)
            // The subscription renews either way; `pro` only into a product that grants it.
            #expect(try await h.chain(at: 6)?.willRenew == true)
            #expect(pending.willRenew == (next == "pro.yearly"))
            try await h.notify(.didRenew, transaction: H.transaction("1001", product: next, purchased: 30, expires: 60),
                               renewal: H.renewal(renewsTo: next, product: next, signed: 30), at: 30)
            #expect(try await h.chain(at: 31)?.productId == next)
        }
    }

    @Test func offerRedemptionIsActive() async throws {
        try await H.run { h in
            try await h.submit(user: "u1", H.transaction("1000", purchased: 0, expires: 30), at: 0)
            try await h.notify(.offerRedeemed, transaction: H.transaction("1001", purchased: 30, expires: 90, offer: .subscriptionOfferCode), at: 30)
            #expect(try await h.entitlement("pro", of: "u1", at: 80)?.status == "active")
        }
    }

    @Test func renewalExtensionMovesTheExpiry() async throws {
        try await H.run { h in
            try await h.submit(user: "u1", H.transaction("1000", purchased: 0, expires: 30), at: 0)
            try await h.notify(.renewalExtended, transaction: H.transaction("1000", purchased: 0, expires: 37, signed: 20), at: 20)
            let extended = try #require(try await h.entitlement("pro", of: "u1", at: 33))
            #expect(extended.active)
            #expect(extended.expiresAt == Day.date(37))
        }
    }

    @Test func nonConsumableGrantsForLifeUntilRefunded() async throws {
        try await H.run { h in
            try await h.submit(user: "u1", H.transaction("5000", original: "5000", product: "lifetime.pro", purchased: 0, type: .nonConsumable), at: 0)
            let lifetime = try #require(try await h.entitlement("pro", of: "u1", at: 3650))
            #expect(lifetime.active)
            #expect(lifetime.expiresAt == nil)
            #expect(!lifetime.willRenew)
            try await h.notify(.refund, transaction: H.transaction("5000", original: "5000", product: "lifetime.pro", purchased: 0, type: .nonConsumable, signed: 50, revoked: 50), at: 50)
            #expect(try await h.entitlement("pro", of: "u1", at: 51)?.status == "refunded")
        }
    }

    /// StoreKit 1 restores a non-consumable as a new transaction of the same purchase, with a later
    /// purchase date; Apple's refund names the purchase. The refund ends the restored copy too, and
    /// its reversal gives it back.
    @Test func aRefundOfANonConsumablePurchaseEndsItsRestoresToo() async throws {
        try await H.run { h in
            let purchase = H.transaction("5000", original: "5000", product: "lifetime.pro", purchased: 0, type: .nonConsumable)
            try await h.submit(user: "u1", purchase, at: 0)
            try await h.submit(user: "u1", H.transaction("5001", original: "5000", product: "lifetime.pro", purchased: 20, type: .nonConsumable), at: 20)
            #expect(try await h.entitlement("pro", of: "u1", at: 30)?.active == true)
            try await h.notify(.refund, transaction: H.transaction("5000", original: "5000", product: "lifetime.pro", purchased: 0, type: .nonConsumable, signed: 50, revoked: 50), at: 50)
            let refunded = try #require(try await h.entitlement("pro", of: "u1", at: 51))
            #expect(refunded.status == "refunded")
            #expect(!refunded.active)
            #expect(refunded.revokedAt == Day.date(50))
            // Before the refund's date the restored copy gave access.
            #expect(try await h.entitlement("pro", of: "u1", at: 49)?.active == true)
            try await h.notify(.refundReversed, transaction: H.transaction("5000", original: "5000", product: "lifetime.pro", purchased: 0, type: .nonConsumable, signed: 60), at: 60)
            #expect(try await h.entitlement("pro", of: "u1", at: 61)?.status == "active")
        }
    }

    @Test func consumableIsRecordedButGrantsNothing() async throws {
        try await H.run { h in
            let view = try await h.submit(user: "u1", H.transaction("6000", original: "6000", product: "coins.100", purchased: 0, type: .consumable), at: 0)
            #expect(view.entitlements.isEmpty)
            #expect(view.subscriptions.map(\.originalTransactionId) == ["6000"])
            #expect(try await h.store.readStream("subscription-6000").count == 1)
        }
    }

    @Test func nonRenewingSubscriptionLastsTheConfiguredDuration() async throws {
        try await H.run { h in
            try await h.submit(user: "u1", H.transaction("7000", original: "7000", product: "pass.30days", purchased: 0, type: .nonRenewingSubscription), at: 0)
            #expect(try await h.entitlement("pro", of: "u1", at: 29)?.active == true)
            #expect(try await h.entitlement("pro", of: "u1", at: 30.5)?.active == false)
        }
    }

    /// A submission's transaction and renewal info are verified apart, so they must agree: renewal
    /// info about another subscription, naming none, or from another environment is refused and
    /// records nothing; the same pair agreeing is recorded.
    @Test func aSubmittedRenewalInfoMustBeAboutTheTransactionsSubscriptionAndEnvironment() async throws {
        try await H.run { h in
            let transaction = H.transaction("1001", original: "1000", purchased: 1, expires: 31)
            var unnamed = H.renewal(signed: 1)
            unnamed.originalTransactionId = nil
            var production = H.renewal(signed: 1)
            production.environment = .production
            for renewal in [H.renewal(original: "2000", signed: 1), unnamed, production] {
                try await h.expectRefusal(.malformedBody) {
                    try await h.submit(user: "u1", transaction, renewal: renewal, at: 1)
                }
            }
            // Without renewal info `will_renew` is false: true shows the renewal info was recorded.
            let accepted = try await h.submit(user: "u1", transaction, renewal: H.renewal(autoRenew: true, signed: 1), at: 1)
            #expect(accepted.subscriptions.first?.willRenew == true)
        }
    }

    /// A grant's or a revocation's reason is kept in the user's document, which PostgreSQL reads as
    /// jsonb: control characters other than tabs and line breaks are refused, U+0000 above all; and,
    /// since every read of the user loads it, a reason over 1,000 characters.
    @Test(arguments: TestDatabases.dialects)
    func reasonsWithControlCharactersOrTooLongAreRefusedAndRecordNothing(_ dialect: StorageDialect) async throws {
        try await H.run(dialect: dialect) { h in
            let grant = try await h.ledger.grant(userId: "u1", entitlement: "pro", expiresAt: Day.date(10), reason: "support\n\tticket", context: .init(source: "test"))
            // A reason at the length limit is taken; one past it is refused like the others.
            _ = try await h.ledger.grant(userId: "u1", entitlement: "pro", expiresAt: Day.date(10), reason: String(repeating: "é", count: 1000), context: .init(source: "test"))
            // C1 too, as the Id rule counts it (re-test: U+0080, U+0085 and U+009F passed).
            for reason in ["support\u{0}", "support\u{1B}[2J", "support\u{7F}", "support\u{80}", "support\u{85}", "support\u{9F}", String(repeating: "é", count: 1001)] {
                try await h.expectRefusal(.malformedBody) {
                    _ = try await h.ledger.grant(userId: "u1", entitlement: "pro", expiresAt: Day.date(10), reason: reason, context: .init(source: "test"))
                }
                try await h.expectRefusal(.malformedBody) {
                    try await h.ledger.revokeGrant(userId: "u1", grantId: grant.grantId, reason: reason, context: .init(source: "test"))
                }
            }
            #expect(try await h.entitlement("pro", of: "u1", at: 1)?.active == true)
        }
    }

    @Test func manualGrantCountsUntilItsEndDate() async throws {
        try await H.run { h in
            h.clock.set(Day.date(0))
            _ = try await h.ledger.grant(userId: "u1", entitlement: "pro", expiresAt: Day.date(10), reason: "support", context: .init(source: "test"))
            let granted = try #require(try await h.entitlement("pro", of: "u1", at: 5))
            #expect(granted.active)
            #expect(granted.source == .grant)
            #expect(try await h.entitlement("pro", of: "u1", at: 11)?.active == false)
        }
    }

    /// Grants that tie on activity and end date are reported by one rule, the earliest made, whatever
    /// order a read finds them in: every read (each decodes a new dictionary of grants, with its own
    /// iteration order) and every `as_of` replay gives the same view.
    @Test func grantsWithTheSameEndDateAreReportedAlikeByEveryRead() async throws {
        try await H.run { h in
            for grant in 0..<8 {
                h.clock.set(Day.date(Double(grant) * 0.01))
                _ = try await h.ledger.grant(userId: "u1", entitlement: "pro", expiresAt: Day.date(10), reason: "support \(grant)", context: .init(source: "test"))
            }
            var views: [UserEntitlements] = []
            for _ in 0..<12 {
                views.append(try await h.ledger.entitlements(userId: "u1", at: Day.date(5)))
                views.append(try await h.ledger.entitlements(userId: "u1", asOf: Day.date(1), at: Day.date(5)))
            }
            let reported = try #require(views.first?.entitlements.first)
            #expect(reported.purchasedAt == Day.date(0))
            #expect(reported.expiresAt == Day.date(10))
            #expect(views.allSatisfy { $0.entitlements == [reported] })
        }
    }

    @Test func unknownNotificationTypeIsKeptAndIgnoredByTheFold() async throws {
        try await H.run { h in
            try await h.submit(user: "u1", H.transaction("1000", purchased: 0, expires: 30), at: 0)
            let before = try await h.chain(at: 10)
            let result = try await h.notify(NotificationType(rawValue: "SOMETHING_NEW"), at: 10)
            #expect(!result.isDuplicate)
            #expect(try await h.store.readStream("app-com.example.app").map(\.type) == ["apple.notification.v2"])
            #expect(try await h.chain(at: 10) == before)
        }
    }

    /// A notification without a transaction is kept on its app's stream, whichever object names the
    /// app: an external purchase token names it in `externalPurchaseToken`.
    @Test func anExternalPurchaseTokenIsKeptOnItsAppsStream() async throws {
        try await H.run { h in
            h.clock.set(Day.date(3))
            let jws = try h.pki.signNotification(ResponseBodyV2DecodedPayload(
                notificationType: NotificationType(rawValue: "EXTERNAL_PURCHASE_TOKEN"), subtype: NotificationSubtype(rawValue: "UNREPORTED"),
                notificationUUID: UUID().uuidString.lowercased(), version: "2.0", signedDate: Day.apple(3),
                externalPurchaseToken: ExternalPurchaseToken(
                    externalPurchaseId: "SANDBOX_b2ae4d39-2a5e-4b16-8bbc-3c1b2c7d5f01", tokenCreationDate: Day.apple(3), bundleId: H.bundleId
                )
            ))
            let result = try await h.ledger.ingestNotificationV2(body: try TestPKI.notificationBody(signedPayload: jws), context: IngestContext(source: "test"))
            #expect(!result.isDuplicate)
            let stored = try await h.store.readStream("app-com.example.app")
            #expect(stored.map(\.type) == ["apple.notification.v2"])
            #expect(try JSONDecoder().decode(AppleFact.self, from: try #require(stored.first).data).bundleId == H.bundleId)
        }
    }

    @Test func duplicateNotificationIsANoOp() async throws {
        try await H.run { h in
            let jws = try h.pki.signNotification(
                type: .subscribed, subtype: .initialBuy, bundleId: H.bundleId, environment: .sandbox,
                transaction: H.transaction("1000", purchased: 0, expires: 30), signedDate: Day.apple(0)
            )
            let body = try TestPKI.notificationBody(signedPayload: jws)
            let first = try await h.ledger.ingestNotificationV2(body: body, context: .init(source: "test"))
            let second = try await h.ledger.ingestNotificationV2(body: body, context: .init(source: "test"))
            #expect(!first.isDuplicate)
            #expect(second.isDuplicate)
            #expect(second.eventID == first.eventID)
            #expect(try await h.store.readStream("subscription-1000").count == 1)
        }
    }
}
