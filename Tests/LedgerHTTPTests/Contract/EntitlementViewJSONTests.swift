import Foundation
import Testing

@testable import Ledger
@testable import LedgerHTTP

/// The entitlement view is written by hand for speed; it must carry exactly the keys, values and
/// explicit nulls that `JSONEncoder` gives for the same body.
@Suite("Entitlement view: the hand-written JSON agrees with JSONEncoder")
struct EntitlementViewJSONTests {
    /// With every optional set, and with every optional nil (entitlements and subscriptions alike),
    /// the hand-written text parses to the same object as `JSONEncoder`'s, and the nil optionals are
    /// written as explicit nulls rather than left out.
    @Test(arguments: [false, true])
    func viewMatchesJSONEncoder(withNulls: Bool) throws {
        let date = Date(timeIntervalSince1970: 1_795_000_000.123)
        func maybe<T>(_ value: T) -> T? { withNulls ? nil : value }
        let entitlement = EntitlementStatus(
            id: "pro", active: !withNulls, status: withNulls ? "expired" : "active", productId: maybe("pro.monthly"),
            expiresAt: maybe(date), gracePeriodExpiresAt: maybe(date), willRenew: !withNulls,
            renewsToProductId: maybe("pro/yearly \"special\""), originalTransactionId: maybe("2000000123"),
            environment: maybe("Production"), ownership: maybe("purchased"), purchasedAt: maybe(date),
            revokedAt: maybe(date), revocationReason: maybe(1), source: withNulls ? .grant : .appStore
        )
        let chain = ChainEvaluation(
            originalTransactionId: "2000000123", status: .gracePeriod, productId: "pro.monthly",
            latestTransactionId: "2000000456", productType: "Auto-Renewable Subscription", expiresAt: maybe(date),
            gracePeriodExpiresAt: maybe(date), willRenew: withNulls, renewsToProductId: maybe("pro.monthly"),
            environment: "Sandbox", ownership: "family_shared", purchasedAt: date, revokedAt: maybe(date),
            revocationReason: maybe(0)
        )
        let view = UserEntitlements(
            userId: "u1\n", evaluatedAt: date, asOf: maybe(date), entitlements: [entitlement, entitlement],
            subscriptions: [chain, chain], position: 42
        )
        let body = EntitlementViewBody(view)
        let written = try JSONSerialization.jsonObject(with: Data(body.json())) as? NSDictionary
        let encoded = try JSONSerialization.jsonObject(with: JSONEncoder().encode(body)) as? NSDictionary
        #expect(written != nil)
        #expect(written == encoded)

        // Both writers leaving a nil out would agree too; the API promises explicit nulls.
        let object = try #require(try JSONSerialization.jsonObject(with: Data(body.json())) as? [String: Any])
        let entitlements = try #require(object["entitlements"] as? [[String: Any]])
        let subscriptions = try #require(object["subscriptions"] as? [[String: Any]])
        #expect(entitlements.count == 2)
        #expect(subscriptions.count == 2)
        let entitlementNullables = [
            "product_id", "expires_at", "grace_period_expires_at", "renews_to_product_id", "original_transaction_id",
            "environment", "ownership", "purchased_at", "revoked_at", "revocation_reason",
        ]
        let subscriptionNullables = ["expires_at", "grace_period_expires_at", "renews_to_product_id", "revoked_at", "revocation_reason"]
        #expect((object["as_of"] is NSNull) == withNulls)
        for entitlement in entitlements {
            for key in entitlementNullables {
                #expect(entitlement[key] != nil, "entitlement \(key) is missing")
                #expect((entitlement[key] is NSNull) == withNulls, "entitlement \(key): \(String(describing: entitlement[key]))")
            }
        }
        for subscription in subscriptions {
            for key in subscriptionNullables {
                #expect(subscription[key] != nil, "subscription \(key) is missing")
                #expect((subscription[key] is NSNull) == withNulls, "subscription \(key): \(String(describing: subscription[key]))")
            }
        }
    }

    /// The view writes `/` plain, as every other answer does (`a/b` was `a\/b` here, `a/b` in the
    /// user's events and grants).
    @Test func slashesAreWrittenPlainAsInEveryOtherAnswer() throws {
        let view = UserEntitlements(userId: "a/b", evaluatedAt: Date(timeIntervalSince1970: 0), asOf: nil, entitlements: [], subscriptions: [], position: 0)
        let text = String(decoding: EntitlementViewBody(view).json(), as: UTF8.self)
        #expect(text.hasPrefix(#"{"user_id":"a/b","#), "\(text)")
        let encoded = String(decoding: try LedgerRequestContext.jsonEncoder.encode(["user_id": "a/b"]), as: UTF8.self)
        #expect(encoded == #"{"user_id":"a/b"}"#)
    }
}
