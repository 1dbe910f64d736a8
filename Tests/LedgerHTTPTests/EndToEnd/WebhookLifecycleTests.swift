import AppStore
import AppStoreTesting
import EventStore
import EventStoreTesting
import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing

/// A subscription told only through Apple's webhooks, over loopback against SQLite and PostgreSQL:
/// the purchase links its `appAccountToken`, renewal changes and expiry show in the user's view, and
/// a webhook whose contents the app cannot accept leaves the store untouched.
@Suite("HTTP webhooks end to end")
struct WebhookLifecycleTests {
    typealias H = APIHarness

    /// The user id an `appAccountToken` links (lowercase, as the ledger keeps it).
    static let token = "6f1c2a8e-3b5d-4c7e-9a0f-1d2e3f4a5b6c"

    static func renewal(autoRenew: AutoRenewStatus, signed day: Double, billingRetry: Bool? = nil, intent: ExpirationIntent? = nil) -> JWSRenewalInfoDecodedPayload {
        var renewal = JWSRenewalInfoDecodedPayload(
            originalTransactionId: "1000", autoRenewProductId: "pro.monthly", productId: "pro.monthly",
            autoRenewStatus: autoRenew, isInBillingRetryPeriod: billingRetry, signedDate: Day.apple(day), environment: .sandbox
        )
        renewal.expirationIntent = intent
        return renewal
    }

    /// SUBSCRIBED links the token's user; auto-renew switched off and on shows in `will_renew`; a
    /// failed renewal is billing retry (no access), until Apple's EXPIRED ends the retry: only that
    /// notification turns the status to `expired`, and the days before it still read as they were.
    @Test(arguments: TestDatabases.dialects)
    func aSubscribedWebhookLinksItsTokenAndAnExpiredOneEndsTheBillingRetry(_ dialect: StorageDialect) async throws {
        try await H.run(dialect) { h in
            var purchase = H.transaction("1000", purchased: 0, expires: 30)
            purchase.appAccountToken = Self.token
            let bought = try await h.notify(.subscribed, .initialBuy, transaction: purchase, renewal: Self.renewal(autoRenew: .on, signed: 0), at: 0)
            #expect(bought.status == .ok)
            #expect(try h.object(bought)["result"] as? String == "recorded")

            let active = try #require(try await h.pro(Self.token, at: 1))
            #expect(active["status"] as? String == "active")
            #expect(active["active"] as? Bool == true)
            #expect(active["will_renew"] as? Bool == true)
            #expect(active["original_transaction_id"] as? String == "1000")
            #expect(active["expires_at"] as? String == "2026-01-31T00:00:00.000Z")
            let types = try await h.events(of: Self.token, atLeast: 2).compactMap { $0["type"] as? String }
            #expect(types.contains("apple.notification.v2"))
            #expect(types.contains("user.linked"))

            _ = try await h.notify(.didChangeRenewalStatus, .autoRenewDisabled, transaction: purchase,
                                   renewal: Self.renewal(autoRenew: .off, signed: 10), at: 10)
            #expect(try await h.pro(Self.token, at: 11)?["will_renew"] as? Bool == false)
            _ = try await h.notify(.didChangeRenewalStatus, .autoRenewEnabled, transaction: purchase,
                                   renewal: Self.renewal(autoRenew: .on, signed: 12), at: 12)
            let renewing = try #require(try await h.pro(Self.token, at: 13))
            #expect(renewing["status"] as? String == "active")
            #expect(renewing["will_renew"] as? Bool == true)

            _ = try await h.notify(.didFailToRenew, transaction: purchase,
                                   renewal: Self.renewal(autoRenew: .on, signed: 30, billingRetry: true), at: 30)
            let retrying = try #require(try await h.pro(Self.token, at: 31))
            #expect(retrying["status"] as? String == "billing_retry")
            #expect(retrying["active"] as? Bool == false)

            let before = try await h.eventCount()
            let expired = try await h.notify(.expired, .billingRetry, transaction: purchase,
                                             renewal: Self.renewal(autoRenew: .off, signed: 90, billingRetry: false, intent: .billingError), at: 90)
            #expect(try h.object(expired)["result"] as? String == "recorded")
            #expect(try await h.eventCount() == before + 1)
            let ended = try #require(try await h.pro(Self.token, at: 91))
            #expect(ended["status"] as? String == "expired")
            #expect(ended["active"] as? Bool == false)
            #expect(ended["will_renew"] as? Bool == false)
            // What was true before Apple ended the retry still reads as it was.
            #expect(try await h.pro(Self.token, at: 31)?["status"] as? String == "billing_retry")
            #expect(try await h.pro(Self.token, at: 29)?["status"] as? String == "active")
        }
    }

    /// A notification of this app whose signed transaction names an app not configured here, and a
    /// Sandbox notification for an app that accepts Production only, are refused and kept as rejections.
    @Test(arguments: TestDatabases.dialects)
    func aForeignNestedTransactionAndARefusedEnvironmentAppendNothing(_ dialect: StorageDialect) async throws {
        try await H.run(dialect) { h in
            let foreign = H.transaction("1000", purchased: 0, expires: 30, bundleId: "com.other.app")
            try await h.expectRefusedAlone(try await h.notify(.subscribed, transaction: foreign, at: 0), code: "unknown_app")
        }
        try await H.run(dialect, environments: [.production]) { h in
            let sandbox = try await h.notify(.subscribed, transaction: H.transaction("1000", purchased: 0, expires: 30), at: 0)
            try await h.expectRefusedAlone(sandbox, code: "environment_not_accepted")
        }
    }

    /// A date past year 9999 is no instant Apple sends: the input is malformed and nothing is
    /// appended, whether it came signed (V2) or with the shared secret (V1).
    @Test(arguments: TestDatabases.dialects)
    func aDateBeyondYear9999IsMalformedAndAppendsNothing(_ dialect: StorageDialect) async throws {
        try await H.run(dialect) { h in
            var signed = H.transaction("1000", purchased: 0, expires: 30)
            signed.purchaseDate = AppStoreDate(millisecondsSince1970: 9_223_372_036_854_775_000)
            let v2 = try await h.notify(.subscribed, transaction: signed, at: 0)
            #expect(v2.status == .badRequest)
            #expect(try h.object(v2)["code"] as? String == "invalid_payload")

            let v1 = try await h.request(.post, "/v1/apple/notifications/v1", json: #"{"notification_type":"INITIAL_BUY","password":"s3cret","environment":"Sandbox","bid":"com.example.app","unified_receipt":{"environment":"Sandbox","status":0,"latest_receipt_info":[{"quantity":"1","product_id":"pro.monthly","transaction_id":"5000","original_transaction_id":"5000","purchase_date_ms":"9223372036854775000"}]}}"#)
            #expect(v1.status == .badRequest)
            #expect(try h.object(v1)["code"] as? String == "malformed_body")
            #expect(try await h.eventCount() == 0)
            #expect(try await h.request(.get, "/v1/users/u1/entitlements", key: H.readKey).status == .ok)
        }
    }

    /// The audit's case over HTTP: a chain the token's user bought, which a backend then submits for
    /// another user, stays with that user through renewals still carrying the token.
    @Test(arguments: TestDatabases.dialects)
    func aRenewalCarryingTheTokenDoesNotTakeBackAChainASubmissionMoved(_ dialect: StorageDialect) async throws {
        try await H.run(dialect) { h in
            var purchase = H.transaction("1000", purchased: 0, expires: 30)
            purchase.appAccountToken = Self.token
            #expect(try await h.notify(.subscribed, .initialBuy, transaction: purchase, at: 0).status == .ok)
            #expect(try await h.pro(Self.token, at: 1)?["active"] as? Bool == true)
            let submitted = try await h.submit(user: "bob", purchase, at: 1)
            #expect(submitted.status == .ok)
            let subscriptions = try h.object(submitted)["subscriptions"] as? [[String: Any]] ?? []
            #expect(subscriptions.compactMap { $0["original_transaction_id"] as? String } == ["1000"])
            for month in 1...2 {
                var renewal = H.transaction("\(1000 + month)", purchased: Double(30 * month), expires: Double(30 * month + 30))
                renewal.appAccountToken = Self.token
                #expect(try await h.notify(.didRenew, transaction: renewal, at: Double(30 * month)).status == .ok)
            }
            let bob = try #require(try await h.pro("bob", at: 61))
            #expect(bob["active"] as? Bool == true)
            #expect(bob["expires_at"] as? String == "2026-04-01T00:00:00.000Z")
            // The token's user no longer holds the subscription: it left that user's view.
            #expect(try await h.pro(Self.token, at: 61) == nil)
        }
    }

    /// Out-of-order ownership over HTTP: the chain's newer transaction carries another user's token
    /// (they subscribed again on the same Apple ID), and the older purchase's notification arrives
    /// only after it. The chain stays with the newer token's user, and the late one links nobody.
    @Test(arguments: TestDatabases.dialects)
    func aLateWebhookAboutAnOlderPurchaseLeavesTheChainWithTheNewestTransactionsToken(_ dialect: StorageDialect) async throws {
        try await H.run(dialect) { h in
            let other = "0b7e4c2d-9a1f-4e3b-8c5d-6f7a8b9c0d1e"
            var renewal = H.transaction("1001", purchased: 30, expires: 60)
            renewal.appAccountToken = other
            #expect(try await h.notify(.didRenew, transaction: renewal, at: 31).status == .ok)
            var purchase = H.transaction("1000", purchased: 0, expires: 30)
            purchase.appAccountToken = Self.token
            let late = try await h.notify(.subscribed, .initialBuy, transaction: purchase, at: 32)
            #expect(try h.object(late)["result"] as? String == "recorded")
            #expect(try await h.pro(other, at: 33)?["expires_at"] as? String == "2026-03-02T00:00:00.000Z")
            #expect(try await h.pro(Self.token, at: 33) == nil)
            // Nothing was recorded for the late token's user: read the feed until the late notification
            // is visible there (PostgreSQL's feed can hold it back while another test's transaction is
            // open), so an empty answer means nothing was written, not "not yet visible".
            let position = try #require(try h.object(late)["position"] as? Int)
            var feed: [[String: Any]] = []
            let deadline = ContinuousClock.now + .seconds(30)
            while !feed.contains(where: { $0["position"] as? Int == position }) && ContinuousClock.now < deadline {
                feed = try h.object(try await h.request(.get, "/v1/events?limit=1000", key: H.readKey))["events"] as? [[String: Any]] ?? []
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(feed.contains { $0["position"] as? Int == position })
            #expect(feed.compactMap { $0["stream_id"] as? String }.filter { $0.hasPrefix("user-") } == ["user-\(other)"])
        }
    }
}
