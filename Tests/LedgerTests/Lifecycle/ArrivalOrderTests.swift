import AppStore
import AppStoreTesting
import Foundation
import Ledger
import Synchronization
import Testing

/// The product's promise where a backend reads it: the same signed notifications and receipt,
/// delivered in any order and some of them twice (Apple's retries), give the same entitlement and
/// subscription views at every moment, owner included. The fold's own permutation test works on observations; this one
/// goes through verification, ingestion, links and the stored documents.
@Suite("Views do not depend on the order notifications arrive in")
struct ArrivalOrderTests {
    typealias H = LedgerHarness

    /// A chain's life told by V2 notifications: alice buys, renews, turns renewal off and on, fails to
    /// renew into a grace period and recovers, an older period is refunded and the refund reversed,
    /// she upgrades to the yearly product, and after it lapses bob subscribes again on the same Apple ID.
    static func notifications(_ h: H) throws -> [Data] {
        func t(_ id: String, _ product: String = "pro.monthly", purchased: Double, expires: Double, token: String = "alice",
               signed: Double? = nil, revoked: Double? = nil, upgraded: Bool? = nil) -> JWSTransactionDecodedPayload {
            H.transaction(id, product: product, purchased: purchased, expires: expires, signed: signed, revoked: revoked, upgraded: upgraded, token: token)
        }
        func r(on: Bool = true, to product: String = "pro.monthly", retry: Bool = false, grace: Double? = nil, signed: Double) -> JWSRenewalInfoDecodedPayload {
            H.renewal(autoRenew: on, renewsTo: product, billingRetry: retry, graceUntil: grace, signed: signed)
        }
        let told: [(NotificationType, NotificationSubtype?, JWSTransactionDecodedPayload, JWSRenewalInfoDecodedPayload?, Double)] = [
            (.subscribed, .initialBuy, t("1000", purchased: 0, expires: 30), r(signed: 0), 0),
            (.didRenew, nil, t("1001", purchased: 30, expires: 60), r(signed: 30), 30),
            (.didChangeRenewalStatus, .autoRenewDisabled, t("1001", purchased: 30, expires: 60, signed: 40), r(on: false, signed: 40), 40),
            (.didChangeRenewalStatus, .autoRenewEnabled, t("1001", purchased: 30, expires: 60, signed: 45), r(signed: 45), 45),
            (.didFailToRenew, .gracePeriod, t("1001", purchased: 30, expires: 60, signed: 60), r(retry: true, grace: 66, signed: 60), 60),
            (.didRenew, .billingRecovery, t("1002", purchased: 63, expires: 93), r(signed: 63), 63),
            (.refund, nil, t("1000", purchased: 0, expires: 30, signed: 70, revoked: 70), nil, 70),
            (.refundReversed, nil, t("1000", purchased: 0, expires: 30, signed: 75), nil, 75),
            (.didChangeRenewalPref, .upgrade, t("1003", "pro.yearly", purchased: 80, expires: 445), r(to: "pro.yearly", signed: 80), 80),
            (.didChangeRenewalPref, .upgrade, t("1002", purchased: 63, expires: 93, signed: 81, upgraded: true), nil, 81),
            (.didChangeRenewalStatus, .autoRenewDisabled, t("1003", "pro.yearly", purchased: 80, expires: 445, signed: 300), r(on: false, to: "pro.yearly", signed: 300), 300),
            (.expired, .voluntary, t("1003", "pro.yearly", purchased: 80, expires: 445, signed: 445), r(on: false, to: "pro.yearly", signed: 445), 445),
            (.subscribed, .resubscribe, t("1004", purchased: 500, expires: 530, token: "bob"), r(signed: 500), 500),
        ]
        return try told.map { type, subtype, transaction, renewal, day in
            let jws = try h.pki.signNotification(
                type: type, subtype: subtype, bundleId: H.bundleId, environment: .sandbox,
                transaction: transaction, renewalInfo: renewal, signedDate: Day.apple(day)
            )
            return try TestPKI.notificationBody(signedPayload: jws)
        }
    }

    /// What a backend would read: each user's view and the chain's, at moments across the life.
    static func views(_ h: H) async throws -> [String] {
        var views: [String] = []
        for day in [1.0, 35, 42, 50, 61, 64, 72, 78, 85, 200, 446, 501, 520, 600] {
            for user in ["alice", "bob"] {
                var view = try await h.ledger.entitlements(userId: user, at: Day.date(day))
                view.position = 0  // where the log stands, which the order of appends decides
                views.append("\(user) at \(day): \(view)")
            }
            views.append("chain at \(day): \(String(describing: try await h.chain(at: day)))")
        }
        return views
    }

    /// Bob's backend validating his receipt on day 510, after he turned renewal off: Apple lists every
    /// transaction of the chain as it stands then (the refund reversed, the monthly period upgraded)
    /// with its renewal info.
    static func registerReceipt(_ h: H) {
        func entry(_ id: String, _ product: String = "pro.monthly", purchased: Double, expires: Double, upgraded: Bool = false) -> LegacyInAppTransaction {
            LegacyInAppTransaction(
                quantity: "1", productId: product, transactionId: id, originalTransactionId: "1000",
                purchaseDate: Day.apple(purchased), originalPurchaseDate: Day.apple(0), expiresDate: Day.apple(expires),
                isTrialPeriod: LegacyFlag(rawValue: "false"), isUpgraded: upgraded ? LegacyFlag(rawValue: "true") : nil
            )
        }
        h.receipts.register(
            VerifyReceiptResponse(
                status: 0, environment: .sandbox, receipt: LegacyReceipt(bundleId: H.bundleId, requestDate: Day.apple(510)),
                latestReceiptInfo: [
                    entry("1004", purchased: 500, expires: 530), entry("1003", "pro.yearly", purchased: 80, expires: 445),
                    entry("1002", purchased: 63, expires: 93, upgraded: true), entry("1001", purchased: 30, expires: 60),
                    entry("1000", purchased: 0, expires: 30),
                ],
                pendingRenewalInfo: [
                    LegacyPendingRenewalInfo(
                        autoRenewProductId: "pro.monthly", autoRenewStatus: LegacyFlag(rawValue: "0"),
                        isInBillingRetryPeriod: LegacyFlag(rawValue: "0"), originalTransactionId: "1000", productId: "pro.monthly"
                    ),
                ]
            ),
            for: "bob-receipt"
        )
    }

    /// Delivers the notifications at day 600 onwards in `order`, where index `receipt` is bob's
    /// receipt submission instead, and reads the views.
    static func deliver(_ order: [Int], receipt: Int) async throws -> [String] {
        let result = Mutex<[String]>([])
        try await H.run(policy: .transfer) { h in
            let bodies = try Self.notifications(h)
            Self.registerReceipt(h)
            for (arrival, index) in order.enumerated() {
                h.clock.set(Day.date(600 + Double(arrival) / 10))
                if index == receipt {
                    _ = try await h.ledger.submitReceipt(userId: "bob", receiptData: "bob-receipt", context: IngestContext(source: "test"))
                } else {
                    _ = try await h.ledger.ingestNotificationV2(body: bodies[index], context: IngestContext(source: "test"))
                }
            }
            let views = try await Self.views(h)
            result.withLock { $0 = views }
        }
        return result.withLock { $0 }
    }

    /// Bob's receipt is a submission, whose link is decided when it arrives; it names bob, as the
    /// newest transaction's token does, so the owner is the same in every order.
    @Test(arguments: 0..<10)
    func theSameNotificationsInAnyOrderGiveTheSameViews(seed: UInt64) async throws {
        let count = 13
        let inOrder = try await Self.deliver(Array(0...count), receipt: count)
        var random = SplitMix64(state: seed &+ 41)
        // Shuffled, with a few notifications delivered twice (Apple's retries), the repeats anywhere.
        var order = Array(0...count) + (0..<3).map { _ in Int.random(in: 0..<count, using: &random) }
        order.shuffle(using: &random)
        let shuffled = try await Self.deliver(order, receipt: count)
        for (expected, got) in zip(inOrder, shuffled) where expected != got {
            Issue.record("arrival order \(order):\nin order: \(expected)\nshuffled: \(got)")
        }
        // The life itself is what it should be, so the comparison compares something. The chain ends
        // with bob, whose token its newest transaction carries, so views `at` any day show it as his.
        #expect(inOrder.contains { $0.hasPrefix("bob at 61.0") && $0.contains(#"status: "grace_period""#) })
        #expect(inOrder.contains { $0.hasPrefix("chain at 446.0") && $0.contains("ChainStatus.expired") })
        #expect(inOrder.contains { $0.hasPrefix("bob at 501.0") && $0.contains(#"status: "active""#) })
        #expect(inOrder.contains { $0.hasPrefix("alice at 501.0") && $0.contains("subscriptions: []") })
        // The receipt's renewal info (renewal off, asserted on day 510) is the newest.
        #expect(inOrder.contains { $0.hasPrefix("chain at 501.0") && $0.contains("willRenew: true") })
        #expect(inOrder.contains { $0.hasPrefix("chain at 520.0") && $0.contains("willRenew: false") })
    }
}
