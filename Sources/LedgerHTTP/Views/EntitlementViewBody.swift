import Foundation
import Hummingbird
import Ledger

/// The entitlement view as backend services read it; the field names are the API contract.
struct EntitlementViewBody: ResponseEncodable, Sendable {
    struct Entitlement: Encodable, Sendable {
        var id: String
        var active: Bool
        var status: String
        @Nullable var product_id: String?
        @Nullable var expires_at: String?
        @Nullable var grace_period_expires_at: String?
        var will_renew: Bool
        @Nullable var renews_to_product_id: String?
        @Nullable var original_transaction_id: String?
        @Nullable var environment: String?
        @Nullable var ownership: String?
        @Nullable var purchased_at: String?
        @Nullable var revoked_at: String?
        @Nullable var revocation_reason: Int?
        var source: String

    }

    var user_id: String
    var evaluated_at: String
    @Nullable var as_of: String?
    var entitlements: [Entitlement]
    var subscriptions: [SubscriptionBody]
    var position: Int64

    init(_ view: UserEntitlements) {
        user_id = view.userId
        evaluated_at = APIDate.string(view.evaluatedAt)
        as_of = view.asOf.map(APIDate.string)
        entitlements = view.entitlements.map { entitlement in
            Entitlement(
                id: entitlement.id, active: entitlement.active, status: entitlement.status,
                product_id: entitlement.productId, expires_at: entitlement.expiresAt.map(APIDate.string),
                grace_period_expires_at: entitlement.gracePeriodExpiresAt.map(APIDate.string),
                will_renew: entitlement.willRenew, renews_to_product_id: entitlement.renewsToProductId,
                original_transaction_id: entitlement.originalTransactionId, environment: entitlement.environment,
                ownership: entitlement.ownership, purchased_at: entitlement.purchasedAt.map(APIDate.string),
                revoked_at: entitlement.revokedAt.map(APIDate.string), revocation_reason: entitlement.revocationReason,
                source: entitlement.source.rawValue
            )
        }
        subscriptions = view.subscriptions.map(SubscriptionBody.init)
        position = view.position
    }

    /// Written by `JSONWriter` rather than `JSONEncoder`, which took a ninth of an entitlement read's
    /// CPU; the keys and explicit nulls are the same (the API tests read them).
    func response(from request: Request, context: some RequestContext) throws -> Response {
        Response(
            status: .ok,
            headers: [.contentType: "application/json; charset=utf-8"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: json()))
        )
    }

    /// The body's JSON text.
    func json() -> [UInt8] {
        // `/` plain, as every other answer writes it (`LedgerRequestContext.jsonEncoder`).
        var writer = JSONWriter(capacity: 256 + 640 * (entitlements.count + subscriptions.count), escapingSlashes: false)
        writer.beginObject()
        writer.key("user_id")
        writer.string(user_id)
        writer.key("evaluated_at")
        writer.string(evaluated_at)
        writer.nullable("as_of", as_of)
        writer.key("entitlements")
        writer.beginArray()
        for entitlement in entitlements { entitlement.write(to: &writer) }
        writer.endArray()
        writer.key("subscriptions")
        writer.beginArray()
        for subscription in subscriptions { subscription.write(to: &writer) }
        writer.endArray()
        writer.key("position")
        writer.int(position)
        writer.endObject()
        return writer.bytes
    }
}

extension EntitlementViewBody.Entitlement {
    fileprivate func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("id")
        writer.string(id)
        writer.key("active")
        writer.bool(active)
        writer.key("status")
        writer.string(status)
        writer.nullable("product_id", product_id)
        writer.nullable("expires_at", expires_at)
        writer.nullable("grace_period_expires_at", grace_period_expires_at)
        writer.key("will_renew")
        writer.bool(will_renew)
        writer.nullable("renews_to_product_id", renews_to_product_id)
        writer.nullable("original_transaction_id", original_transaction_id)
        writer.nullable("environment", environment)
        writer.nullable("ownership", ownership)
        writer.nullable("purchased_at", purchased_at)
        writer.nullable("revoked_at", revoked_at)
        writer.nullable("revocation_reason", revocation_reason)
        writer.key("source")
        writer.string(source)
        writer.endObject()
    }
}

extension SubscriptionBody {
    fileprivate func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("original_transaction_id")
        writer.string(original_transaction_id)
        writer.key("product_id")
        writer.string(product_id)
        writer.key("status")
        writer.string(status)
        writer.key("active")
        writer.bool(active)
        writer.nullable("expires_at", expires_at)
        writer.nullable("grace_period_expires_at", grace_period_expires_at)
        writer.key("will_renew")
        writer.bool(will_renew)
        writer.nullable("renews_to_product_id", renews_to_product_id)
        writer.key("environment")
        writer.string(environment)
        writer.key("ownership")
        writer.string(ownership)
        writer.key("latest_transaction_id")
        writer.string(latest_transaction_id)
        writer.key("purchased_at")
        writer.string(purchased_at)
        writer.nullable("revoked_at", revoked_at)
        writer.nullable("revocation_reason", revocation_reason)
        writer.endObject()
    }
}
