import AppStore
import AppStoreTesting
import EventStore
import EventStoreTesting
import Foundation
import HTTPTypes
import HummingbirdTesting
import Ledger
import NIOCore
import Prometheus
import Synchronization
import Testing

@testable import LedgerHTTP

/// The HTTP contract, driven over loopback against SQLite and PostgreSQL with signed inputs.
@Suite("HTTP API end to end")
struct APIEndToEndTests {
    typealias H = APIHarness

    @Test(arguments: TestDatabases.dialects)
    func aLifecycleThroughWebhooksShowsInTheEntitlementView(_ dialect: StorageDialect) async throws {
        try await H.run(dialect) { h in
            let bought = try await h.submit(user: "u1", H.transaction("1000", purchased: 0, expires: 30), at: 0)
            #expect(bought.status == .ok)
            let view = try h.object(bought)
            #expect(view["user_id"] as? String == "u1")
            let entitlement = try #require((view["entitlements"] as? [[String: Any]])?.first)
            #expect(entitlement["id"] as? String == "pro")
            #expect(entitlement["active"] as? Bool == true)
            #expect(entitlement["expires_at"] as? String == "2026-01-31T00:00:00.000Z")
            #expect(entitlement["source"] as? String == "app_store")
            #expect(entitlement.keys.contains("grace_period_expires_at"))
            #expect((view["subscriptions"] as? [[String: Any]])?.first?["latest_transaction_id"] as? String == "1000")

            let renewed = try await h.notify(.didRenew, transaction: H.transaction("1001", purchased: 30, expires: 60), at: 30)
            #expect(renewed.status == .ok)
            #expect(try h.object(renewed)["result"] as? String == "recorded")
            #expect(try await h.pro("u1", at: 45)?["status"] as? String == "active")

            try await #expect(h.notify(.didFailToRenew, .gracePeriod,
                renewal: JWSRenewalInfoDecodedPayload(originalTransactionId: "1000", autoRenewProductId: "pro.monthly", productId: "pro.monthly",
                    autoRenewStatus: .on, isInBillingRetryPeriod: true, gracePeriodExpiresDate: Day.apple(66), signedDate: Day.apple(60), environment: .sandbox),
                at: 60).status == .ok)
            let grace = try #require(try await h.pro("u1", at: 62))
            #expect(grace["status"] as? String == "grace_period")
            #expect(grace["active"] as? Bool == true)
            #expect(grace["grace_period_expires_at"] as? String == "2026-03-08T00:00:00.000Z")
            #expect(try await h.pro("u1", at: 67)?["status"] as? String == "billing_retry")
            #expect(try await h.pro("u1", at: 67)?["active"] as? Bool == false)

            _ = try await h.notify(.refund, transaction: H.transaction("1001", purchased: 30, expires: 60, signed: 40, revoked: 40), at: 40)
            #expect(try await h.pro("u1", at: 45)?["status"] as? String == "refunded")
            _ = try await h.notify(.refundReversed, transaction: H.transaction("1001", purchased: 30, expires: 60, signed: 41), at: 41)
            #expect(try await h.pro("u1", at: 45)?["status"] as? String == "active")

            let chain = try await h.request(.get, "/v1/subscriptions/1000?at=\(Day.iso(45))", key: H.readKey)
            #expect(chain.status == .ok)
            #expect(try h.object(chain)["status"] as? String == "active")
            let unknown = try await h.request(.get, "/v1/subscriptions/9999", key: H.readKey)
            #expect(unknown.status == .notFound)
            #expect(try h.object(unknown)["detail"] as? String == "no subscription with original transaction id 9999; a subscription is named "
                + "by its first purchase's id (originalTransactionId), not by a renewal's transactionId")
        }
    }

    /// A JWS of one kind sent where another belongs is named as what it is. Each kind decodes from
    /// the others' JSON, so renewal info sent as a transaction was refused as `unknown_app`,
    /// "bundle id (missing)", which sent the integrator to their configuration.
    @Test func aJWSSentWhereAnotherKindBelongsIsNamedAsWhatItIs() async throws {
        try await H.run(.sqlite) { h in
            h.clock.set(Day.date(1))
            let renewal = try h.pki.signRenewalInfo(JWSRenewalInfoDecodedPayload(
                originalTransactionId: "1000", autoRenewProductId: "pro.monthly", productId: "pro.monthly",
                autoRenewStatus: .on, signedDate: Day.apple(0), environment: .sandbox
            ))
            let notification = try h.pki.signNotification(
                type: .subscribed, subtype: .initialBuy, bundleId: H.bundleId, environment: .sandbox,
                transaction: H.transaction("1000", purchased: 0, expires: 30), signedDate: Day.apple(0)
            )
            let transaction = try h.pki.signTransaction(H.transaction("1000", purchased: 0, expires: 30))
            // An AppTransaction names the app, but no environment where a transaction does.
            let appTransaction = try h.pki.signAppTransaction(AppTransactionDecodedPayload(
                receiptType: .sandbox, bundleId: H.bundleId, applicationVersion: "1", receiptCreationDate: Day.apple(0)
            ))
            let foreignAppTransaction = try h.pki.signAppTransaction(AppTransactionDecodedPayload(
                receiptType: .sandbox, bundleId: "com.other.app", applicationVersion: "1", receiptCreationDate: Day.apple(0)
            ))
            var noBundle = H.transaction("1000", purchased: 0, expires: 30)
            noBundle.bundleId = nil
            let appless = try h.pki.signTransaction(noBundle)
            for (path, key, body, detail) in [
                ("/v1/apple/transactions", H.ingestKey, #"{"user_id":"u1","signed_transaction":"\#(appTransaction)"}"#,
                 "the JWS holds an app transaction, not a transaction (it has receiptType)"),
                ("/v1/apple/transactions", H.ingestKey, #"{"user_id":"u1","signed_transaction":"\#(renewal)"}"#,
                 "the JWS holds renewal info, not a transaction (it has autoRenewStatus)"),
                ("/v1/apple/transactions", H.ingestKey, #"{"user_id":"u1","signed_transaction":"\#(notification)"}"#,
                 "the JWS holds a notification, not a transaction (it has notificationType)"),
                ("/v1/apple/notifications/v2", nil, #"{"signedPayload":"\#(transaction)"}"#,
                 "the JWS holds a transaction, not a notification (it has transactionId)"),
                // Of an app not configured, named as what it is rather than as an unknown app.
                ("/v1/apple/transactions", H.ingestKey, #"{"user_id":"u1","signed_transaction":"\#(foreignAppTransaction)"}"#,
                 "the JWS holds an app transaction, not a transaction (it has receiptType)"),
                // A transaction where renewal info belongs decodes as renewal info stating no auto-renew.
                ("/v1/apple/transactions", H.ingestKey, #"{"user_id":"u1","signed_transaction":"\#(transaction)","signed_renewal_info":"\#(transaction)"}"#,
                 "the JWS holds a transaction, not renewal info (it has transactionId)"),
                // A transaction that names no app is told so, not that "(missing)" is not configured.
                ("/v1/apple/transactions", H.ingestKey, #"{"user_id":"u1","signed_transaction":"\#(appless)"}"#,
                 "transaction names no bundleId"),
            ] as [(String, String?, String, String)] {
                let response = try await h.request(.post, path, key: key, json: body)
                #expect(response.status == .badRequest, "\(detail)")
                #expect(try h.object(response)["code"] as? String == "invalid_payload", "\(detail)")
                #expect(try h.object(response)["detail"] as? String == detail)
            }
            #expect(try await h.eventCount() == 0)
            // A transaction of an app that is not configured is still that.
            let foreign = try h.pki.signTransaction(H.transaction("2000", purchased: 0, expires: 30, bundleId: "com.other.app"))
            let unknown = try await h.request(.post, "/v1/apple/transactions", key: H.ingestKey, json: #"{"user_id":"u1","signed_transaction":"\#(foreign)"}"#)
            #expect(try h.object(unknown)["code"] as? String == "unknown_app")
        }
    }

    /// Foundation's JSONDecoder traps (killing the server) on a text that ends on the `[` opening
    /// its 513th level. No endpoint hands it such a text: each answers 400 and the server goes on,
    /// whether the brackets are the body, follow a field, or are a JWS header or payload.
    @Test func aBodyEndingOnTheBracketPastTheDecodersDepthIsRefusedNotFatal() async throws {
        try await H.run(.sqlite) { h in
            let deep = String(repeating: "[", count: 513)
            let segment = Data(deep.utf8).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
            let posts: [(String, String?, String)] = [
                ("/v1/apple/notifications/v2", nil, deep),
                ("/v1/apple/notifications/v2", nil, #"{"signedPayload": "#.appending(String(repeating: "[", count: 512))),
                ("/v1/apple/notifications/v2", nil, #"{"signedPayload":"\#(segment).\#(segment).AAAA"}"#),
                ("/v1/apple/notifications/v1", nil, deep),
                ("/v1/apple/transactions", H.ingestKey, deep),
                ("/v1/apple/transactions", H.ingestKey, #"{"user_id":"u1","signed_transaction":"\#(segment).\#(segment).AAAA"}"#),
                ("/v1/apple/receipts", H.ingestKey, #"{"user_id": "#.appending(String(repeating: "[", count: 512))),
                ("/v1/users/u1/grants", H.adminKey, deep),
                ("/v1/users/u1/grants/g1/revoke", H.adminKey, deep),
            ]
            for (path, key, body) in posts {
                let answer = try await h.request(.post, path, key: key, json: body)
                #expect(answer.status == .badRequest, "\(path) \(body.prefix(40))")
            }
            let refused = try await h.request(.post, "/v1/apple/receipts", key: H.ingestKey, json: deep)
            #expect(try h.object(refused)["detail"] as? String
                == "the body must be a JSON object, and the text is not valid JSON: arrays and objects nest deeper than 512 levels here (line 1, column 513)")
            #expect(try await h.request(.get, "/health").status == .ok)
            #expect(try await h.eventCount() == 0)
        }
    }

    /// The chain view names who owns the subscription now and its app: nobody before a user claims
    /// it, the claimant after, the new owner after a transfer, whatever moment `at` evaluates.
    @Test(arguments: TestDatabases.dialects)
    func theChainViewNamesItsOwnerNowAndItsApp(_ dialect: StorageDialect) async throws {
        try await H.run(dialect) { h in
            #expect(try await h.notify(.subscribed, .initialBuy, transaction: H.transaction("6000", original: "6000", purchased: 0, expires: 30), at: 0).status == .ok)
            let unclaimed = try h.object(try await h.request(.get, "/v1/subscriptions/6000", key: H.readKey))
            #expect(unclaimed["user_id"] is NSNull)
            #expect(unclaimed["bundle_id"] as? String == H.bundleId)
            #expect(unclaimed["latest_transaction_id"] as? String == "6000")

            #expect(try await h.submit(user: "u1", H.transaction("6000", original: "6000", purchased: 0, expires: 30), at: 1).status == .ok)
            #expect(try h.object(try await h.request(.get, "/v1/subscriptions/6000", key: H.readKey))["user_id"] as? String == "u1")

            // The default policy moves the subscription to the user who submits it next.
            #expect(try await h.submit(user: "u2", H.transaction("6001", original: "6000", purchased: 30, expires: 60), at: 31).status == .ok)
            let moved = try h.object(try await h.request(.get, "/v1/subscriptions/6000?at=\(Day.iso(10))", key: H.readKey))
            #expect(moved["user_id"] as? String == "u2")
            #expect(moved["latest_transaction_id"] as? String == "6000")
            #expect(moved["bundle_id"] as? String == H.bundleId)
        }
    }

    /// The rest of the lifecycle, over HTTP: a subscription that is not renewed expires, a family
    /// member's access ends when the purchaser's sharing is revoked, and an upgrade switches product at once.
    @Test(arguments: TestDatabases.dialects)
    func expiryFamilyRevokeAndUpgradeShowInTheEntitlementView(_ dialect: StorageDialect) async throws {
        try await H.run(dialect) { h in
            _ = try await h.submit(user: "u1", H.transaction("1000", purchased: 0, expires: 30), at: 0)
            #expect(try await h.pro("u1", at: 29)?["status"] as? String == "active")
            let expired = try #require(try await h.pro("u1", at: 31))
            #expect(expired["status"] as? String == "expired")
            #expect(expired["active"] as? Bool == false)

            _ = try await h.submit(user: "kid", H.transaction("2000", original: "2000", purchased: 0, expires: 30, family: true), at: 0)
            let shared = try #require(try await h.pro("kid", at: 1))
            #expect(shared["ownership"] as? String == "family_shared")
            #expect(shared["active"] as? Bool == true)
            let revoke = try await h.notify(.revoke, transaction: H.transaction(
                "2000", original: "2000", purchased: 0, expires: 30, signed: 3, revoked: 3, revocationType: .familyRevoke, family: true
            ), at: 3)
            #expect(revoke.status == .ok)
            let revoked = try #require(try await h.pro("kid", at: 4))
            #expect(revoked["status"] as? String == "revoked")
            #expect(revoked["active"] as? Bool == false)
            #expect(revoked["revoked_at"] as? String == "2026-01-04T00:00:00.000Z")

            _ = try await h.submit(user: "u3", H.transaction("3000", original: "3000", product: "basic.monthly", purchased: 5, expires: 35), at: 5)
            let upgrade = try await h.notify(.didChangeRenewalPref, .upgrade,
                                             transaction: H.transaction("3001", original: "3000", product: "pro.monthly", purchased: 10, expires: 40), at: 10)
            #expect(upgrade.status == .ok)
            let view = try h.object(try await h.request(.get, "/v1/users/u3/entitlements?at=\(Day.iso(11))", key: H.readKey))
            let entitlements = try #require(view["entitlements"] as? [[String: Any]])
            let pro = try #require(entitlements.first { $0["id"] as? String == "pro" })
            #expect(pro["active"] as? Bool == true)
            #expect(pro["product_id"] as? String == "pro.monthly")
            #expect(entitlements.first { $0["id"] as? String == "basic" }?["active"] as? Bool == false)
            #expect((view["subscriptions"] as? [[String: Any]])?.first?["latest_transaction_id"] as? String == "3001")
        }
    }

    @Test(arguments: TestDatabases.dialects)
    func aDuplicateIsAnsweredDuplicateAndAnOlderLateNotificationDoesNotRegress(_ dialect: StorageDialect) async throws {
        try await H.run(dialect) { h in
            _ = try await h.submit(user: "u1", H.transaction("1000", purchased: 0, expires: 30), at: 0)
            let jws = try h.pki.signNotification(type: .didRenew, bundleId: H.bundleId, environment: .sandbox,
                                                 transaction: H.transaction("1001", purchased: 30, expires: 60), signedDate: Day.apple(30))
            let body = #"{"signedPayload":"\#(jws)"}"#
            let first = try await h.request(.post, "/v1/apple/notifications/v2", json: body)
            let before = try await h.eventCount()
            let second = try await h.request(.post, "/v1/apple/notifications/v2", json: body)
            #expect(try h.object(first)["result"] as? String == "recorded")
            #expect(try h.object(second)["result"] as? String == "duplicate")
            #expect(try h.object(second)["event_id"] as? String == h.object(first)["event_id"] as? String)
            #expect(try await h.eventCount() == before)

            // The refund arrives, then Apple's retry of an older DID_RENEW: the refund stands.
            _ = try await h.notify(.refund, transaction: H.transaction("1001", purchased: 30, expires: 60, signed: 35, revoked: 35), at: 35)
            _ = try await h.notify(.didRenew, transaction: H.transaction("1001", purchased: 30, expires: 60, signed: 30), at: 36)
            #expect(try await h.pro("u1", at: 40)?["status"] as? String == "refunded")
        }
    }

    /// A V2 body in UTF-16 or UTF-32, which the decoder reads, is kept as its text in UTF-8: read as
    /// UTF-8, its bytes would keep a NUL between every two characters and the byte order mark as
    /// U+FFFD, not the text that was sent. The same notification in UTF-8 is then a duplicate.
    @Test(arguments: TestDatabases.dialects)
    func aV2BodyInUTF16IsKeptAsItsTextInUTF8(_ dialect: StorageDialect) async throws {
        try await H.run(dialect) { h in
            h.clock.set(Day.date(1))
            let jws = try h.pki.signNotification(type: .subscribed, subtype: .initialBuy, bundleId: H.bundleId, environment: .sandbox,
                                                 transaction: H.transaction("1000", purchased: 0, expires: 30), signedDate: Day.apple(1))
            let body = "{ \"signedPayload\": \"\(jws)\" }"
            for (index, encoding) in [String.Encoding.utf16, .utf32LittleEndian].enumerated() {
                let sent = try #require(body.data(using: encoding))
                let response = try await h.client.execute(
                    uri: "/v1/apple/notifications/v2", method: .post, headers: [.contentType: "application/json"], body: ByteBuffer(bytes: sent)
                )
                #expect(response.status == .ok, "\(encoding)")
                #expect(try h.object(response)["result"] as? String == (index == 0 ? "recorded" : "duplicate"), "\(encoding)")
            }
            let again = try await h.request(.post, "/v1/apple/notifications/v2", json: body)
            #expect(try h.object(again)["result"] as? String == "duplicate")
            let events = try await h.store.readStream(LedgerEventType.chainStream("1000"))
            #expect(events.count == 1)
            let recorded = try #require(events.first)
            #expect(try JSONDecoder().decode(AppleFact.self, from: recorded.data).raw == body)
        }
    }

    @Test(arguments: TestDatabases.dialects)
    func forgedWrongChainWrongAppWrongEnvironmentAndWrongPasswordAppendNothing(_ dialect: StorageDialect) async throws {
        try await H.run(dialect) { h in
            let before = try await h.eventCount()
            let impostor = try TestPKI(name: "impostor")
            let jws = try h.pki.signNotification(type: .subscribed, bundleId: H.bundleId, environment: .sandbox,
                                                 transaction: H.transaction("1000", purchased: 0, expires: 30), signedDate: Day.apple(0))
            var bytes = Array(jws.utf8)
            let index = bytes.count - 5
            bytes[index] = bytes[index] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
            let forged = try await h.request(.post, "/v1/apple/notifications/v2", json: #"{"signedPayload":"\#(String(decoding: bytes, as: UTF8.self))"}"#)
            let cases: [(TestResponse, HTTPResponse.Status, String)] = [
                (forged, .badRequest, "invalid_signature"),
                (try await h.notify(.subscribed, transaction: H.transaction("1000", purchased: 0, expires: 30), at: 0, signer: impostor), .badRequest, "untrusted_chain"),
                (try await h.notify(.subscribed, transaction: H.transaction("1000", purchased: 0, expires: 30, bundleId: "com.other.app"), at: 0, bundleId: "com.other.app"), .badRequest, "unknown_app"),
                (try await h.notify(.subscribed, transaction: H.transaction("1000", purchased: 0, expires: 30, environment: .xcode), at: 0, environment: .xcode), .badRequest, "environment_not_accepted"),
                (try await h.request(.post, "/v1/apple/notifications/v2", json: "not json"), .badRequest, "malformed_body"),
                (try await h.request(.post, "/v1/apple/notifications/v2", json: #"{"signedPayload":42}"#), .badRequest, "malformed_body"),
                (try await h.request(.post, "/v1/apple/notifications/v1", json: #"{"notification_type":"INITIAL_BUY","password":"guess","bid":"com.example.app","unified_receipt":{"latest_receipt_info":[]}}"#), .badRequest, "invalid_password"),
            ]
            for (response, status, code) in cases {
                #expect(response.status == status)
                #expect(response.headers[.contentType] == "application/problem+json")
                let problem = try h.object(response)
                if !code.isEmpty { #expect(problem["code"] as? String == code) }
                #expect(problem["status"] as? Int == Int(status.code))
                #expect(problem["title"] is String && problem["detail"] is String && problem["type"] is String)
                // A webhook's proof failed, not an API key: no challenge to answer.
                #expect(response.headers[.wwwAuthenticate] == nil)
            }
            #expect(try await h.eventCount() == before)
            let rejections = try await h.store.rejections(limit: 10)
            #expect(rejections.count == cases.count)
            #expect(rejections.contains { $0.code == "invalid_signature" && $0.source == "POST /v1/apple/notifications/v2" })
            // The refused V1 body is kept for operators without the password it guessed.
            let refusedV1 = try #require(rejections.first { $0.code == "invalid_password" })
            #expect(!refusedV1.body.contains("guess") && refusedV1.body.contains(#""password":"[redacted]""#))
        }
    }

    /// A refusal's detail may quote what was sent: anyone can post a V1 body, and its unknown `bid`
    /// of about 1 MB came back whole in the answer and the rejection row. Both keep at most 1,000
    /// characters of the detail and say how much was left out.
    @Test(arguments: TestDatabases.dialects)
    func aRefusalQuotesAtMostAThousandCharactersOfWhatWasSent(_ dialect: StorageDialect) async throws {
        try await H.run(dialect) { h in
            let bid = String(repeating: "A", count: 900_000)
            let response = try await h.request(
                .post, "/v1/apple/notifications/v1", json: #"{"notification_type":"DID_RENEW","password":"x","bid":"\#(bid)"}"#
            )
            #expect(response.status == .badRequest)
            #expect(response.body.readableBytes < 2_000)
            let problem = try h.object(response)
            #expect(problem["code"] as? String == "unknown_app")
            let detail = try #require(problem["detail"] as? String)
            #expect(detail.hasSuffix("characters left out)"))
            let rejection = try #require(try await h.store.rejections(limit: 10).first)
            #expect(rejection.code == "unknown_app")
            #expect(rejection.detail == detail)

            // One character can carry any number of combining marks: the limit counts scalars.
            let accented = "A" + String(repeating: "\u{301}", count: 400_000)
            let marks = try await h.request(
                .post, "/v1/apple/notifications/v1", json: #"{"notification_type":"DID_RENEW","password":"x","bid":"\#(accented)"}"#
            )
            #expect(marks.status == .badRequest)
            #expect(marks.body.readableBytes < 4_000)
            let rejections = try await h.store.rejections(limit: 10)
            #expect(rejections.count == 2, "\(rejections.map(\.code))")
            #expect(rejections.allSatisfy { $0.detail.utf8.count < 4_000 })
        }
    }

    /// An empty body is told that it is empty wherever a body is taken (the webhooks said "not valid
    /// JSON: it is empty"), each endpoint naming what it takes, and a webhook's is recorded as refused
    /// with nothing appended.
    @Test(arguments: TestDatabases.dialects)
    func anEmptyBodyIsToldSoAtEveryEndpointThatTakesOne(_ dialect: StorageDialect) async throws {
        try await H.run(dialect) { h in
            for (path, key, detail) in [
                ("/v1/apple/notifications/v2", nil, "notification body is empty; Apple posts a JSON object with a signedPayload string"),
                ("/v1/apple/notifications/v1", nil, "the body is empty; an App Store Server Notification V1 is a JSON object"),
                ("/v1/apple/transactions", H.ingestKey, "the body is empty; this endpoint takes a JSON object"),
                ("/v1/apple/receipts", H.ingestKey, "the body is empty; this endpoint takes a JSON object"),
                ("/v1/users/u1/grants", H.adminKey, "the body is empty; this endpoint takes a JSON object"),
            ] as [(String, String?, String)] {
                let response = try await h.request(.post, path, key: key, json: "")
                #expect(response.status == .badRequest, "\(path)")
                #expect(try h.object(response)["code"] as? String == "malformed_body", "\(path)")
                #expect(try h.object(response)["detail"] as? String == detail, "\(path)")
            }
            let rejections = try await h.store.rejections(limit: 10)
            #expect(Set(rejections.map(\.detail)) == [
                "notification body is empty; Apple posts a JSON object with a signedPayload string",
                "the body is empty; an App Store Server Notification V1 is a JSON object",
            ])
            #expect(rejections.allSatisfy { $0.code == "malformed_body" && $0.body.isEmpty })
            #expect(try await h.eventCount() == 0)
        }
    }

    /// A grant's `expires_at` is read like a query date: a day that does not exist is named, not
    /// rolled over, and the text is repeated.
    @Test func aGrantEndingOnADayThatDoesNotExistIsToldWhich() async throws {
        try await H.run(.sqlite) { h in
            for (expires, detail) in [
                ("2027-02-29T00:00:00Z", "expires_at names no real moment: February 2027 has 28 days (got 2027-02-29T00:00:00Z)"),
                ("2027-01-01", "expires_at must be an RFC 3339 date-time, like 2027-01-01T00:00:00Z or 2027-01-01T01:00:00+01:00 (got 2027-01-01)"),
            ] {
                let response = try await h.request(
                    .post, "/v1/users/u1/grants", key: H.adminKey, json: #"{"entitlement":"pro","expires_at":"\#(expires)","reason":"support"}"#
                )
                #expect(response.status == .badRequest)
                #expect(try h.object(response)["code"] as? String == "malformed_body")
                #expect(try h.object(response)["detail"] as? String == detail)
            }
            #expect(try await h.eventCount() == 0)
        }
    }

    /// A V1 body posted to the V2 endpoint is told where it goes, and its rejection does not keep the
    /// shared secret it carries; a V2 body's rejection is kept byte for byte.
    @Test(arguments: TestDatabases.dialects)
    func aV1BodyPostedToTheV2EndpointIsRedirectedAndKeptRedacted(_ dialect: StorageDialect) async throws {
        try await H.run(dialect) { h in
            let v1 = #"{"notification_type":"DID_RENEW","password":"s3cret","bid":"com.example.app","environment":"Sandbox"}"#
            let response = try await h.request(.post, "/v1/apple/notifications/v2", json: v1)
            #expect(response.status == .badRequest)
            #expect(try h.object(response)["detail"] as? String == "the body is a V1 notification (notification_type, no signedPayload): post it to /v1/apple/notifications/v1")
            _ = try await h.request(.post, "/v1/apple/notifications/v2", json: #"{"signedPayload": "a.b.c"}"#)
            // The other way round too, in the answer and the rejection's detail.
            let v2 = try await h.request(.post, "/v1/apple/notifications/v1", json: #"{"signedPayload": "a.b.c"}"#)
            let hint = "the body is a V2 notification ({\"signedPayload\": ...}): post it to /v1/apple/notifications/v2"
            #expect(try h.object(v2)["detail"] as? String == hint)
            #expect(try await h.store.rejections(limit: 10).contains { $0.detail == hint })
            let kept = try await h.store.rejections(limit: 10).map(\.body)
            #expect(kept.contains(v1.replacingOccurrences(of: "s3cret", with: "[redacted]")), "\(kept)")
            #expect(kept.contains(#"{"signedPayload": "a.b.c"}"#), "\(kept)")
            #expect(!kept.contains { $0.contains("s3cret") })
            // A body that is not UTF-8 JSON is kept as it came, not replaced by the redaction's placeholder.
            _ = try await h.request(.post, "/v1/apple/notifications/v2", json: "binary\u{0}body")
            let bodies = try await h.store.rejections(limit: 10).map(\.body)
            #expect(bodies.contains { $0.hasPrefix("binary") }, "\(bodies)")
            // Unless it may name a password: then the secret's key cannot be found in it, and none of it is kept.
            _ = try await h.request(.post, "/v1/apple/notifications/v2", json: "{'password':'s3cr3t-binary'}\u{0}")
            #expect(!(try await h.store.rejections(limit: 20)).contains { $0.body.contains("s3cr3t-binary") })
            // In UTF-16, where the password's name has a NUL between its letters, the body is read as
            // its text and redacted like any other, its secret in no form kept.
            for encoding in [String.Encoding.utf16LittleEndian, .utf16] {
                let utf16 = try #require(v1.replacingOccurrences(of: "s3cret", with: "s3cr3t-utf16").data(using: encoding))
                let refused = try await h.client.execute(uri: "/v1/apple/notifications/v2", method: .post, headers: [.contentType: "application/json"], body: ByteBuffer(bytes: utf16))
                #expect(try h.object(refused)["detail"] as? String == "the body is a V1 notification (notification_type, no signedPayload): post it to /v1/apple/notifications/v1")
            }
            let afterUTF16 = try await h.store.rejections(limit: 20).map(\.body)
            // Its letters and digits alone, so the secret shows however its bytes were read.
            #expect(!afterUTF16.contains { String($0.unicodeScalars.filter { $0.isASCII && $0.properties.isAlphabetic || ("0"..."9").contains($0) }.map(Character.init)).contains("s3cr3tutf16") }, "\(afterUTF16)")
            #expect(afterUTF16.filter { $0 == v1.replacingOccurrences(of: "s3cret", with: "[redacted]") }.count == 3, "\(afterUTF16)")
            // One over the signed input's 64 KiB limit is told the same, not only that it is too large.
            let long = v1.replacingOccurrences(of: #""environment":"Sandbox""#, with: #""environment":"Sandbox","latest_receipt":"\#(String(repeating: "A", count: 70_000))""#)
            let large = try await h.request(.post, "/v1/apple/notifications/v2", json: long)
            #expect(large.status == .badRequest)
            #expect(try h.object(large)["code"] as? String == "malformed_body")
            #expect(try await h.eventCount() == 0)
        }
    }

    /// A body sent to another input's endpoint (a submission to a webhook, a notification or the
    /// other submission to a client endpoint) is told which endpoint takes it; nothing is appended.
    @Test func aBodySentToAnotherInputsEndpointIsToldWhereItGoes() async throws {
        try await H.run(.sqlite) { h in
            let transaction = #"{"user_id":"u1","signed_transaction":"a.b.c"}"#
            let receipt = #"{"user_id":"u1","receipt_data":"MIIT"}"#
            let v1 = #"{"notification_type":"DID_RENEW","password":"s3cret","environment":"Sandbox"}"#
            let takesTransaction = "this endpoint takes user_id, signed_transaction, signed_renewal_info"
            let takesReceipt = "this endpoint takes user_id, receipt_data, bundle_id"
            let toTransactions = "the body is a transaction submission (signed_transaction): post it to /v1/apple/transactions, with an API key of scope ingest"
            let toReceipts = "the body is a receipt submission (receipt_data): post it to /v1/apple/receipts, with an API key of scope ingest"
            for (path, key, body, detail) in [
                ("/v1/apple/notifications/v2", nil, transaction, toTransactions),
                ("/v1/apple/notifications/v2", nil, receipt, toReceipts),
                ("/v1/apple/notifications/v1", nil, transaction, toTransactions),
                ("/v1/apple/notifications/v1", nil, receipt, toReceipts),
                ("/v1/apple/transactions", H.ingestKey, #"{"signedPayload":"a.b.c"}"#,
                 #"unknown field "signedPayload"; \#(takesTransaction); the body is a V2 notification ({"signedPayload": ...}): post it to /v1/apple/notifications/v2"#),
                ("/v1/apple/transactions", H.ingestKey, receipt, #"unknown field "receipt_data"; \#(takesTransaction); \#(toReceipts)"#),
                ("/v1/apple/receipts", H.ingestKey, transaction, #"unknown field "signed_transaction"; \#(takesReceipt); \#(toTransactions)"#),
                ("/v1/apple/receipts", H.ingestKey, v1,
                 #"unknown fields "environment", "notification_type", "password"; \#(takesReceipt); the body is a V1 notification (notification_type, no signedPayload): post it to /v1/apple/notifications/v1"#),
                // A body that names no other input's field is told only what the endpoint takes.
                ("/v1/apple/transactions", H.ingestKey, #"{"user":"u1"}"#, #"unknown field "user"; \#(takesTransaction)"#),
            ] as [(String, String?, String, String)] {
                let response = try await h.request(.post, path, key: key, json: body)
                #expect(response.status == .badRequest, "\(path) \(body)")
                #expect(try h.object(response)["code"] as? String == "malformed_body", "\(path) \(body)")
                #expect(try h.object(response)["detail"] as? String == detail, "\(path) \(body)")
            }
            // Text that is not JSON is told so first, there too (security walkthrough: a trailing
            // comma or a repeated name was told only where the body goes).
            for body in [#"{"user_id":"u1","signed_transaction":"x",}"#, #"{"user_id":"u1","signed_transaction":"x","user_id":"u2"}"#, #"{"notification_type":"DID_RENEW",}"#] {
                let response = try await h.request(.post, "/v1/apple/notifications/v2", json: body)
                #expect(try h.object(response)["detail"] as? String == "notification body is not valid JSON: \(try #require(JSONSyntaxFault.findAccepting(Data(body.utf8))))", "\(body)")
            }
            #expect(try await h.eventCount() == 0)
            #expect(!(try await h.store.rejections(limit: 10)).contains { $0.body.contains("s3cret") })
        }
    }

    /// The refused webhook bodies, newest first, to an admin key: what was refused and why, without
    /// database access; a read key is 403, and the limit is checked like the feed's.
    @Test(arguments: TestDatabases.dialects)
    func refusedWebhookBodiesAreListedNewestFirstToAnAdminKey(_ dialect: StorageDialect) async throws {
        try await H.run(dialect) { h in
            // None yet: an empty list, not an error.
            #expect((try h.object(try await h.request(.get, "/v1/rejections", key: H.adminKey))["rejections"] as? [Any])?.isEmpty == true)
            let forged = try TestPKI().signNotification(type: .subscribed, bundleId: H.bundleId, signedDate: Day.apple(0))
            let v2 = try await h.request(.post, "/v1/apple/notifications/v2", json: #"{"signedPayload":"\#(forged)"}"#)
            let v1 = try await h.request(
                .post, "/v1/apple/notifications/v1", json: #"{"notification_type":"DID_RENEW","password":"guess","bid":"com.example.app","environment":"Sandbox"}"#,
                headers: [HTTPField.Name("X-Request-ID")!: "hook-retry-7"]
            )
            let listed = try await h.request(.get, "/v1/rejections", key: H.adminKey)
            #expect(listed.status == .ok)
            let rejections = try #require(try h.object(listed)["rejections"] as? [[String: Any]])
            #expect(rejections.map { $0["source"] as? String } == ["POST /v1/apple/notifications/v1", "POST /v1/apple/notifications/v2"])
            #expect(rejections.map { $0["code"] as? String } == ["invalid_password", "untrusted_chain"])
            #expect((rejections[0]["body"] as? String)?.contains(#""password":"[redacted]""#) == true)
            #expect(rejections[1]["body"] as? String == #"{"signedPayload":"\#(forged)"}"#)
            #expect((rejections[0]["received_at"] as? String)?.hasSuffix("Z") == true)
            #expect(rejections.allSatisfy { ($0["detail"] as? String)?.isEmpty == false })
            // Each row names the request id its sender was answered with, offered or made, so it
            // leads to the refusal's log lines.
            let answered = try [v1, v2].map { try #require($0.headers[HTTPField.Name("X-Request-ID")!]) }
            #expect(answered[0] == "hook-retry-7")
            #expect(rejections.map { $0["request_id"] as? String } == answered)
            let one = try await h.request(.get, "/v1/rejections?limit=1", key: H.adminKey)
            #expect((try h.object(one)["rejections"] as? [Any])?.count == 1)
            #expect(try await h.request(.get, "/v1/rejections", key: H.readKey).status == .forbidden)
            #expect(try await h.request(.get, "/v1/rejections?limit=0", key: H.adminKey).status == .badRequest)
            #expect(try await h.request(.get, "/v1/rejections?after=1", key: H.adminKey).status == .badRequest)
            #expect(try await h.eventCount() == 0)
        }
    }

    /// Under `keep`, a second user's claim on a chain is 409 `link_conflict` as problem+json; the
    /// submitted fact and the refused link are recorded, and the first owner keeps the chain.
    @Test(arguments: TestDatabases.dialects)
    func aClaimOnAnotherUsersChainUnderKeepIsALinkConflict(_ dialect: StorageDialect) async throws {
        try await H.run(dialect, policy: .keep) { h in
            let purchase = H.transaction("1000", purchased: 0, expires: 30)
            #expect(try await h.submit(user: "alice", purchase, at: 0).status == .ok)
            let renewal = H.transaction("1001", purchased: 30, expires: 60, signed: 30)
            let conflict = try await h.submit(user: "bob", renewal, at: 30)
            #expect(conflict.status == .conflict)
            #expect(conflict.headers[.contentType] == "application/problem+json")
            #expect(try h.object(conflict)["code"] as? String == "link_conflict")
            // Alice's purchase, its link, bob's renewal and his refused link.
            #expect(try await h.eventCount() == 4)
            // The renewal is Apple's fact about alice's chain, whoever submitted it.
            #expect(try await h.pro("alice", at: 31)?["expires_at"] as? String == "2026-03-02T00:00:00.000Z")
            let bob = try h.object(try await h.request(.get, "/v1/users/bob/entitlements", key: H.readKey))
            #expect((bob["entitlements"] as? [Any])?.isEmpty == true)
        }
    }

    /// Every read route wants the `read` scope and every operator route `admin`: a known key without
    /// it is answered 403 `forbidden` (401 is for a key that is missing or unknown), on a user and a
    /// chain that exist.
    @Test(arguments: TestDatabases.dialects)
    func aKeyWithoutTheRouteScopeIsForbiddenOnEveryReadAndOperatorRoute(_ dialect: StorageDialect) async throws {
        try await H.run(dialect) { h in
            #expect(try await h.submit(user: "u1", H.transaction("1000", purchased: 0, expires: 30), at: 0).status == .ok)
            let reads = ["/v1/users/u1/entitlements", "/v1/users/u1/events", "/v1/subscriptions/1000", "/v1/events"]
            let operators = ["/v1/users/u1/grants", "/v1/rejections"]
            for (path, key) in reads.map({ ($0, H.ingestOnlyKey) }) + operators.flatMap({ [($0, H.readKey), ($0, H.ingestKey)] }) {
                let answer = try await h.request(.get, path, key: key)
                #expect(answer.status == .forbidden, "\(path): \(answer.status)")
                #expect(answer.headers[.contentType] == "application/problem+json", "\(path)")
                #expect(try h.object(answer)["code"] as? String == "forbidden", "\(path)")
            }
            var ndjson = HTTPFields()
            ndjson[.accept] = "application/x-ndjson"
            #expect(try await h.request(.get, "/v1/events", key: H.ingestOnlyKey, headers: ndjson).status == .forbidden)
            for key in [H.readKey, H.ingestKey] {
                let grant = try await h.request(.post, "/v1/users/u1/grants", key: key, json: #"{"entitlement":"pro","expires_at":"2026-12-01T00:00:00Z","reason":"x"}"#)
                #expect(grant.status == .forbidden)
                let revoke = try await h.request(.post, "/v1/users/u1/grants/g1/revoke", key: key, json: #"{"reason":"x"}"#)
                #expect(revoke.status == .forbidden)
            }
            // The same routes answer the keys that hold the scope.
            for path in reads { #expect(try await h.request(.get, path, key: H.readKey).status == .ok, "\(path)") }
            for path in operators { #expect(try await h.request(.get, path, key: H.adminKey).status == .ok, "\(path)") }
            // The ingest-only key ingests.
            #expect(try await h.request(.post, "/v1/apple/transactions", key: H.ingestOnlyKey, json: #"{"user_id":"u1","signed_transaction":"x"}"#).status == .badRequest)
        }
    }

    @Test(arguments: TestDatabases.dialects)
    func authenticationScopesAndBodyLimitAreEnforcedBeforeTheStore(_ dialect: StorageDialect) async throws {
        try await H.run(dialect) { h in
            let missing = try await h.request(.get, "/v1/users/u1/entitlements")
            #expect(missing.status == .unauthorized)
            #expect(try h.object(missing)["code"] as? String == "unauthorized")
            #expect(try await h.request(.get, "/v1/users/u1/entitlements", key: "sl_wrong").status == .unauthorized)
            // The scheme in any case, one or more spaces (RFC 9110's 1*SP), then the secret; any
            // other form is refused.
            for header in ["bearer \(H.readKey)", "BEARER \(H.readKey)", "BeArEr \(H.readKey)", "Bearer  \(H.readKey)", "Bearer    \(H.readKey)"] {
                let answer = try await h.request(.get, "/v1/users/u1/entitlements", headers: [.authorization: header])
                #expect(answer.status == .ok, "\(header)")
            }
            for header in ["Basic \(H.readKey)", "Bearer", "Bearer ", "Bearer   ", "Bearerx \(H.readKey)", "Bearer\t\(H.readKey)", H.readKey,
                           "Bearer \t\(H.readKey)", "Bearer \(H.readKey)x", "Bearer \(H.readKey.dropLast())"] {
                let answer = try await h.request(.get, "/v1/users/u1/entitlements", headers: [.authorization: header])
                #expect(answer.status == .unauthorized, "\(header)")
                #expect(try h.object(answer)["code"] as? String == "unauthorized")
            }
            // Given twice, even with the same key, the header is refused and the answer says why
            // (its values arrive joined by a comma, which no key matches).
            for second in [H.readKey, "sl_wrong"] {
                var twice = HTTPFields()
                twice.append(HTTPField(name: .authorization, value: "Bearer \(H.readKey)"))
                twice.append(HTTPField(name: .authorization, value: "Bearer \(second)"))
                let answer = try await h.request(.get, "/v1/users/u1/entitlements", headers: twice)
                #expect(answer.status == .unauthorized)
                #expect(try h.object(answer)["detail"] as? String == "the Authorization header is given more than once; send it once, as Bearer <API key>")
            }
            #expect(try h.object(try await h.request(.get, "/v1/users/u1/entitlements", key: "sl_wrong"))["detail"] as? String == "unknown API key")
            let forbidden = try await h.request(.post, "/v1/apple/transactions", key: H.readKey, json: #"{"user_id":"u1","signed_transaction":"x"}"#)
            #expect(forbidden.status == .forbidden)
            #expect(try h.object(forbidden)["code"] as? String == "forbidden")
            #expect(try await h.request(.post, "/v1/users/u1/grants", key: H.ingestKey, json: "{}").status == .forbidden)
            let huge = String(repeating: "x", count: 2 << 20)
            let tooLarge = try await h.request(.post, "/v1/apple/notifications/v2", json: #"{"signedPayload":"\#(huge)"}"#)
            #expect(tooLarge.status == .contentTooLarge)
            #expect(try h.object(tooLarge)["code"] as? String == "payload_too_large")
            // Under the 1 MiB mark, a V2 body over the verifier's limit is told the limit.
            let overSigned = try await h.request(.post, "/v1/apple/notifications/v2", json: #"{"signedPayload":"\#(String(repeating: "x", count: 70_000))"}"#)
            #expect(overSigned.status == .contentTooLarge)
            #expect(try h.object(overSigned)["detail"] as? String
                == "notification body is 70020 bytes, the maximum is 66560 (65536 for the signed payload, 1024 for the JSON around it)")
            let malformed = try await h.request(.post, "/v1/apple/transactions", key: H.ingestKey, json: #"{"user":"u1"}"#)
            #expect(malformed.status == .badRequest)
            #expect(try h.object(malformed)["code"] as? String == "malformed_body")
            // A field the endpoint does not take is refused, not dropped: a misspelt optional one
            // would record the transaction without its renewal info, a misspelt required one reads
            // as missing. Checked before the user id or the signatures.
            for (path, body, takes) in [
                ("/v1/apple/transactions", #"{"user_id":"u1","signed_transaction":"x","signedRenewalInfo":"y"}"#, "user_id, signed_transaction, signed_renewal_info"),
                ("/v1/apple/receipts", #"{"userId":"u1","receipt_data":"x"}"#, "user_id, receipt_data, bundle_id"),
                ("/v1/users/u1/grants", #"{"entitlement":"pro","expires_at":"2030-01-01T00:00:00Z","reason":"r","note":"n"}"#, "entitlement, expires_at, reason"),
                ("/v1/users/u1/grants/g1/revoke", #"{"reason":"r","why":"w"}"#, "reason"),
            ] {
                let refused = try await h.request(.post, path, key: path.hasPrefix("/v1/users") ? H.adminKey : H.ingestKey, json: body)
                #expect(refused.status == .badRequest, "\(path)")
                let name = body.contains("signedRenewalInfo") ? "signedRenewalInfo" : body.contains("userId") ? "userId" : body.contains("note") ? "note" : "why"
                #expect(try h.object(refused)["detail"] as? String == "unknown field \"\(name)\"; this endpoint takes \(takes)", "\(path)")
            }
            // curl's -d alone labels the body form-urlencoded; it is read as JSON all the same.
            let form = try await h.client.execute(
                uri: "/v1/apple/transactions", method: .post,
                headers: [.authorization: "Bearer \(H.ingestKey)", .contentType: "application/x-www-form-urlencoded"],
                body: ByteBuffer(string: #"{"user_id":"u1","signed_transaction":"x","extra":1}"#)
            )
            #expect(try h.object(form)["detail"] as? String == "unknown field \"extra\"; this endpoint takes user_id, signed_transaction, signed_renewal_info")
            // Every unknown name is listed, quoted, so an empty one or a whole camelCased body shows in one answer.
            let camel = try await h.request(.post, "/v1/apple/transactions", key: H.ingestKey, json: #"{"userId":"u1","signedTransaction":"x","":1}"#)
            #expect(try h.object(camel)["detail"] as? String
                == #"unknown fields "", "signedTransaction", "userId"; this endpoint takes user_id, signed_transaction, signed_renewal_info"#)
            // Text that is not JSON is told where it stops being JSON, not only that it is not.
            let quoted = try await h.request(.post, "/v1/apple/transactions", key: H.ingestKey, json: "{\n  'user_id': \"u1\"\n}")
            #expect(try h.object(quoted)["detail"] as? String == "not valid JSON: expected a field name in double quotes, found ''' (line 2, column 3)")
            let notJSON = try await h.request(.post, "/v1/apple/notifications/v2", json: #"{"signedPayload": "a.b.c""#)
            #expect(try h.object(notJSON)["detail"] as? String
                == "notification body is not valid JSON: the text ends early: expected ',' or '}' (line 1, column 26)")
            // Text the decoder reads leniently as another value is told both that it must be an object
            // and where it stops being JSON; JSON of the wrong kind is told the body must be an object.
            for (json, fault) in [
                ("[1,]", "a comma cannot come right before ']' (line 1, column 3)"), ("01", "a number cannot start with 0 (line 1, column 1)"),
                ("1.", "the text ends early: expected a digit after the decimal point (line 1, column 3)"),
                (#"[{"a":1,"a":2}]"#, #"the field name "a" is given twice in this object (line 1, column 9)"#),
                (#"{"signedPayload":5,}"#, "a comma cannot come right before '}' (line 1, column 19)"),
            ] {
                let webhook = try await h.request(.post, "/v1/apple/notifications/v2", json: json)
                // A V2 body is told the same, the text's fault before a field's (`signedPayload` is 5).
                let told = json.hasPrefix("{") ? "is not valid JSON: \(fault)" : "must be a JSON object with a signedPayload string, and the text is not valid JSON: \(fault)"
                #expect(try h.object(webhook)["detail"] as? String == "notification body \(told)", "\(json)")
                // An object is the right kind for a submission (its faults are covered with the others).
                if json.hasPrefix("{") { continue }
                let submission = try await h.request(.post, "/v1/apple/transactions", key: H.ingestKey, json: json)
                #expect(try h.object(submission)["detail"] as? String == "the body must be a JSON object, and the text is not valid JSON: \(fault)", "\(json)")
            }
            // Text the decoder cannot read at all is told it is not an object too, when it opens
            // another kind of value; text that opens an object is told only where it stops.
            for (json, fault) in [("[1", "the text ends early: expected ',' or ']' (line 1, column 3)"), (" 5,", "more after the JSON value, found ',' (line 1, column 3)")] {
                let submission = try await h.request(.post, "/v1/apple/transactions", key: H.ingestKey, json: json)
                let said = try h.object(submission)["detail"] as? String
                #expect(said == "the body must be a JSON object, and the text is not valid JSON: \(fault)", "\(json): \(said ?? "-")")
                let webhook = try await h.request(.post, "/v1/apple/notifications/v2", json: json)
                #expect(try h.object(webhook)["detail"] as? String
                    == "notification body must be a JSON object with a signedPayload string, and the text is not valid JSON: \(fault)", "\(json)")
                let v1 = try await h.request(.post, "/v1/apple/notifications/v1", json: json)
                #expect(try h.object(v1)["detail"] as? String
                    == "the body is not an App Store Server Notification V1: the top level must be an object, and the text is not valid JSON: \(fault)", "\(json)")
            }
            let opened = try await h.request(.post, "/v1/apple/transactions", key: H.ingestKey, json: #"{"user_id""#)
            #expect(try h.object(opened)["detail"] as? String == "not valid JSON: the text ends early: expected ':' after the field name (line 1, column 11)")
            // Also in UTF-16 without a byte order mark, which the decoder reads: not a NUL fault.
            for array in ["[1]", "[\u{0}1\u{0}]\u{0}"] {
                let refused = try await h.request(.post, "/v1/apple/transactions", key: H.ingestKey, json: array)
                #expect(try h.object(refused)["detail"] as? String == "the body must be a JSON object", "\(array.utf8.count) bytes")
            }
            #expect(try await h.eventCount() == 0)
            #expect(try await h.request(.get, "/v1/users/u1/entitlements?at=yesterday", key: H.readKey).status == .badRequest)
            // A date that does not exist is refused, not rolled over to March 2.
            let impossible = try await h.request(.get, "/v1/users/u1/entitlements?at=2026-02-30T00:00:00Z", key: H.readKey)
            #expect(impossible.status == .badRequest)
            #expect(try h.object(impossible)["code"] as? String == "invalid_query")
            // The answer names the field that names no real moment (the text looks right at a glance)
            // and repeats what it read, so a value mangled on the way (an unencoded space) shows.
            #expect(try h.object(impossible)["detail"] as? String == "at names no real moment: February 2026 has 28 days (got 2026-02-30T00:00:00Z)")
            let hour = try await h.request(.get, "/v1/users/u1/entitlements?as_of=2026-01-01T24:00:00Z", key: H.readKey)
            #expect(try h.object(hour)["detail"] as? String == "as_of names no real moment: hours run from 00 to 23 (got 2026-01-01T24:00:00Z)")
            let dayOnly = try await h.request(.get, "/v1/users/u1/entitlements?at=2026-02-30", key: H.readKey)
            #expect(try h.object(dayOnly)["detail"] as? String
                == "at must be an RFC 3339 date-time, like 2026-11-21T10:00:00Z or 2026-11-21T11:00:00+01:00 (got 2026-02-30)")
            let spaced = try await h.request(.get, "/v1/users/u1/entitlements?at=2026-11-21T10:00:00%2001:00", key: H.readKey)
            #expect((try h.object(spaced)["detail"] as? String)?.hasSuffix("(got 2026-11-21T10:00:00 01:00)") == true)
            let cursor = try await h.request(.get, "/v1/events?after=40", key: H.readKey)
            // A bare position is told why it is not enough; other text only what a cursor looks like.
            #expect(try h.object(cursor)["detail"] as? String == "after must be a cursor from next_after, like 812-40 (0-0 for the start), "
                + "not a bare position: the feed is in commit order, and a position alone does not say where to resume (got 40)")
            let word = try await h.request(.get, "/v1/users/u1/events?after=start", key: H.readKey)
            #expect(try h.object(word)["detail"] as? String == "after must be a cursor from next_after, like 812-40 (0-0 for the start; got start)")
            // A cursor in the right form whose numbers no cursor holds is told they are out of range.
            let bigCursor = try await h.request(.get, "/v1/events?after=99999999999999999999-1", key: H.readKey)
            #expect(try h.object(bigCursor)["detail"] as? String == "after is out of range: a cursor's transaction is at most 18446744073709551615 "
                + "and its position at most 9223372036854775807 (got 99999999999999999999-1)")
            // An empty value is told so, not shown as "(got )".
            let emptyAt = try await h.request(.get, "/v1/users/u1/entitlements?at=", key: H.readKey)
            #expect(try h.object(emptyAt)["detail"] as? String
                == "at must be an RFC 3339 date-time, like 2026-11-21T10:00:00Z or 2026-11-21T11:00:00+01:00 (it is empty)")
            let emptyLimit = try await h.request(.get, "/v1/events?limit=", key: H.readKey)
            #expect(try h.object(emptyLimit)["detail"] as? String
                == "limit must be a whole number from 1 to 1000 in plain digits, without a sign or leading zeros (it is empty)")
            // A real moment the API cannot name is out of range, not "no real moment".
            let early = try await h.request(.get, "/v1/users/u1/entitlements?at=0001-01-01T00:00:00%2B18:00", key: H.readKey)
            #expect(try h.object(early)["detail"] as? String
                == "at is out of range: the API names moments in years 0001 to 9999, in UTC (got 0001-01-01T00:00:00+18:00)")
            // Foundation's parser ignores what follows a date; the whole text must be one.
            let trailing = try await h.request(.get, "/v1/users/u1/entitlements?as_of=2026-11-21T10:00:00Zjunk", key: H.readKey)
            #expect(trailing.status == .badRequest)
            #expect(try h.object(trailing)["code"] as? String == "invalid_query")
            // A parameter a route does not take is refused, not ignored: a misspelt as_of, or an
            // as_of where there is none, answered the current state as if it had been applied.
            for (path, name, known) in [
                ("/v1/users/u1/entitlements?asof=2020-01-01T00:00:00Z", "asof", "at, as_of"),
                ("/v1/subscriptions/2000?as_of=2020-01-01T00:00:00Z", "as_of", "at"),
                ("/v1/users/u1/events?cursor=0-0", "cursor", "after, limit"),
                ("/v1/events?after=0-0&page=2", "page", "after, limit"),
            ] {
                let unknown = try await h.request(.get, path, key: H.readKey)
                #expect(unknown.status == .badRequest, "\(path)")
                #expect(try h.object(unknown)["code"] as? String == "invalid_query", "\(path)")
                #expect(try h.object(unknown)["detail"] as? String == "unknown query parameter \(name); this endpoint takes \(known)", "\(path)")
            }
            #expect(try await h.request(.get, "/v1/users/u1/entitlements?at=2000-01-01T00:00:00Z&as_of=2000-01-01T00:00:00Z&&", key: H.readKey).status == .ok)
            let twice = try await h.request(.get, "/v1/subscriptions/2000?at=2000-01-01T00:00:00Z&at=2030-01-01T00:00:00Z", key: H.readKey)
            #expect(twice.status == .badRequest)
            #expect(try h.object(twice)["detail"] as? String == "at is given more than once")
            #expect(try await h.request(.head, "/v1/events?page=2", key: H.readKey).status == .badRequest)
            let grant = try await h.request(
                .post, "/v1/users/u1/grants", key: H.adminKey,
                json: #"{"entitlement":"pro","expires_at":"2027-01-01T00:00:00Z!!","reason":"support"}"#
            )
            #expect(grant.status == .badRequest)
            #expect(try h.object(grant)["code"] as? String == "malformed_body")
            #expect(try await h.eventCount() == 0)
        }
    }

    /// A GET never blames the request for the server's own data: an event this build cannot read
    /// (appended past the ledger here), folded again for `as_of`, answers 500 `internal_error`, not
    /// 400 `malformed_body`. The user's event list shows it as stored, as the feed does.
    @Test(arguments: TestDatabases.dialects)
    func storedDataThisBuildCannotReadIsTheServersFaultNotTheRequests(_ dialect: StorageDialect) async throws {
        try await H.run(dialect) { h in
            let unreadable = NewEvent(type: LedgerEventType.userLinked, data: Data(#"{"userId":5}"#.utf8))
            _ = try await h.store.append(to: LedgerEventType.userStream("u9"), [unreadable])
            // PostgreSQL's feed shows it once older transactions of the parallel tests have ended.
            _ = try await readLog(h.store, atLeast: 1)
            let listed = try h.object(try await h.request(.get, "/v1/users/u9/events", key: H.readKey))
            #expect((listed["events"] as? [[String: Any]])?.map { $0["type"] as? String } == [LedgerEventType.userLinked])
            let response = try await h.request(.get, "/v1/users/u9/entitlements?as_of=\(Day.iso(0))", key: H.readKey)
            #expect(response.status == .internalServerError)
            let problem = try h.object(response)
            #expect(problem["code"] as? String == "internal_error")
            #expect(problem["detail"] as? String == "stored data could not be read")
        }
    }

    /// An event reads the same, byte for byte, from the user's page and from the feed, and every JSON
    /// answer but the entitlement view (next test) has its keys sorted at every depth and `/`
    /// unescaped: an auditor can compare or hash what two endpoints gave, and a body does not change
    /// with the process that wrote it.
    @Test(arguments: TestDatabases.dialects)
    func anEventReadsTheSameFromEveryEndpointAndKeysAreSorted(_ dialect: StorageDialect) async throws {
        try await H.run(dialect) { h in
            let granted = try await h.request(
                .post, "/v1/users/u1/grants", key: H.adminKey, json: #"{"entitlement":"pro","expires_at":"2027-01-01T00:00:00Z","reason":"support"}"#
            )
            #expect(granted.status == .created)
            _ = try await readLog(h.store, atLeast: 1)
            func event(_ response: TestResponse) -> Substring? {
                let body = String(buffer: response.body)
                guard let start = body.firstRange(of: #"{"events":["#), let end = body[start.upperBound...].firstRange(of: #"],"next_after""#) else { return nil }
                return body[start.upperBound..<end.lowerBound]
            }
            let userPage = try await h.request(.get, "/v1/users/u1/events", key: H.readKey)
            let fromPage = try #require(event(userPage))
            let fromFeed = try #require(event(try await h.request(.get, "/v1/events?after=0-0", key: H.readKey)))
            #expect(fromPage == fromFeed)
            #expect(fromPage.contains(#""source":"POST /v1/users/{user_id}/grants""#), "\(fromPage)")

            #expect(try await h.notify(.subscribed, transaction: H.transaction("1000", purchased: 0, expires: 30), at: 0).status == .ok)
            let chain = String(buffer: try await h.request(.get, "/v1/subscriptions/1000", key: H.readKey).body)

            // Every object at every depth, counted so a scan that finds none fails: an event page's
            // events with their data and metadata, the chain, the grant list and its grants, the
            // grant as made, and a problem.
            #expect(JSONKeyOrder.expectSortedKeys(chain, "chain") == 1)
            #expect(JSONKeyOrder.expectSortedKeys(String(buffer: granted.body), "grant") == 1)
            let page = String(buffer: userPage.body)
            #expect(JSONKeyOrder.expectSortedKeys(page, "user's events") >= 4, "\(page)")
            _ = try await readLog(h.store, atLeast: 2)
            let feed = String(buffer: try await h.request(.get, "/v1/events?after=0-0", key: H.readKey).body)
            #expect(JSONKeyOrder.expectSortedKeys(feed, "feed") >= 4, "\(feed)")
            let grants = String(buffer: try await h.request(.get, "/v1/users/u1/grants", key: H.adminKey).body)
            #expect(JSONKeyOrder.expectSortedKeys(grants, "grant list") == 2, "\(grants)")
            let problem = try await h.request(.get, "/v1/subscriptions/9999", key: H.readKey)
            #expect(problem.headers[.contentType] == "application/problem+json")
            #expect(JSONKeyOrder.expectSortedKeys(String(buffer: problem.body), "problem") == 1)
        }
    }

    /// The entitlement view is the exception docs/api.md names: written by its own writer in the
    /// order the docs show, top level, entitlements and subscriptions alike, not sorted.
    @Test func theEntitlementViewKeepsTheKeyOrderTheDocsShow() async throws {
        try await H.run(.sqlite) { h in
            let granted = try await h.request(
                .post, "/v1/users/u1/grants", key: H.adminKey, json: #"{"entitlement":"basic","expires_at":"2027-01-01T00:00:00Z","reason":"support"}"#
            )
            #expect(granted.status == .created)
            let submitted = try await h.submit(user: "u1", H.transaction("1000", purchased: 0, expires: 30), at: 1)
            #expect(submitted.status == .ok)
            let read = try await h.request(.get, "/v1/users/u1/entitlements", key: H.readKey)
            for (view, source) in [(String(buffer: submitted.body), "submission"), (String(buffer: read.body), "read")] {
                let objects = JSONKeyOrder.objectKeys(in: view)
                // Inner objects end first: the two entitlements (pro, basic), the subscription, then the view.
                #expect(objects.count == 4, "\(source): \(view)")
                #expect(objects.last == Self.viewKeys, "\(source)")
                #expect(objects.dropLast().filter { $0 == Self.entitlementKeys }.count == 2, "\(source): \(objects)")
                #expect(objects.dropLast().filter { $0 == Self.subscriptionKeys }.count == 1, "\(source): \(objects)")
            }
        }
    }

    /// The entitlement view's keys in docs/api.md's order.
    static let viewKeys = ["user_id", "evaluated_at", "as_of", "entitlements", "subscriptions", "position"]
    static let entitlementKeys = [
        "id", "active", "status", "product_id", "expires_at", "grace_period_expires_at", "will_renew", "renews_to_product_id",
        "original_transaction_id", "environment", "ownership", "purchased_at", "revoked_at", "revocation_reason", "source",
    ]
    static let subscriptionKeys = [
        "original_transaction_id", "product_id", "status", "active", "expires_at", "grace_period_expires_at", "will_renew",
        "renews_to_product_id", "environment", "ownership", "latest_transaction_id", "purchased_at", "revoked_at", "revocation_reason",
    ]

    @Test(arguments: TestDatabases.dialects)
    func aServedPathWithAnotherMethodIs405NamingItsMethodsAndAnUnknownPathIs404(_ dialect: StorageDialect) async throws {
        try await H.run(dialect) { h in
            let read = try await h.request(.post, "/v1/users/u1/entitlements", key: H.ingestKey, json: "{}")
            #expect(read.status == .methodNotAllowed)
            #expect(read.headers[.allow] == "GET, HEAD")
            #expect(try h.object(read)["detail"] as? String == "POST is not served here; use GET or HEAD")
            #expect(read.headers[.contentType] == "application/problem+json")
            #expect(try h.object(read)["code"] as? String == "method_not_allowed")
            let webhook = try await h.request(.get, "/v1/apple/notifications/v2")
            #expect(webhook.status == .methodNotAllowed)
            #expect(webhook.headers[.allow] == "POST")
            let grantsResponse = try await h.request(.delete, "/v1/users/alice%40x.com/grants", key: H.adminKey)
            let grants = grantsResponse.headers[.allow] ?? ""
            #expect(Set(grants.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }) == ["GET", "HEAD", "POST"], "\(grants)")
            // Three methods read as a list: "GET, POST or HEAD", not "GET or POST or HEAD".
            let detail = try h.object(grantsResponse)["detail"] as? String ?? ""
            #expect(detail.hasPrefix("DELETE is not served here; use ") && detail.contains(", ") && detail.components(separatedBy: " or ").count == 2, "\(detail)")
            #expect(try await h.request(.get, "/v1/users/alice%40x.com/grants/x/revoke", key: H.adminKey).headers[.allow] == "POST")
            for path in ["/v1/users/u1/nothing", "/v1/users/u1/entitlements/extra", "/v2/events"] {
                let unknown = try await h.request(.get, path, key: H.readKey)
                #expect(unknown.status == .notFound, "\(path)")
                #expect(try h.object(unknown)["code"] as? String == "not_found")
                #expect(try h.object(unknown)["title"] as? String == "Not found", "\(path)")
                // What was asked for is named, not only "Not Found".
                #expect(try h.object(unknown)["detail"] as? String == "no endpoint serves GET \(path); the paths are listed in docs/api.md")
                #expect(unknown.headers[.allow] == nil)
            }
            // A route's own 404 has the same title as the router's (RFC 9457: it does not change).
            let subscription = try await h.request(.get, "/v1/subscriptions/424242", key: H.readKey)
            #expect(subscription.status == .notFound)
            #expect(try h.object(subscription)["title"] as? String == "Not found")
            #expect(try await h.eventCount() == 0)
        }
    }

    /// Uptime checks and caches send HEAD: every GET route the router serves (taken from it, so a
    /// new one is covered or fails here) answers it as its GET would, without the body, behind the
    /// same key check.
    @Test(arguments: TestDatabases.dialects)
    func headOnAGetRouteAnswersTheGetsStatusAndHeadersWithoutABody(_ dialect: StorageDialect) async throws {
        // Each GET route, as the router names it, with a path naming something stored and a key of
        // the scope the route requires (nil: a probe, which takes none).
        let requests: [String: (path: String, key: String?)] = [
            "/health": ("/health", nil), "/ready": ("/ready", nil), "/metrics": ("/metrics", nil),
            "/v1/users/{user_id}/entitlements": ("/v1/users/u1/entitlements", H.readKey),
            "/v1/users/{user_id}/events": ("/v1/users/u1/events", H.readKey),
            "/v1/users/{user_id}/grants": ("/v1/users/u1/grants", H.adminKey),
            "/v1/subscriptions/{original_transaction_id}": ("/v1/subscriptions/1000", H.readKey),
            "/v1/events": ("/v1/events", H.readKey),
            "/v1/rejections": ("/v1/rejections", H.adminKey),
        ]
        try await H.run(dialect) { h in
            _ = try await h.submit(user: "u1", H.transaction("1000", purchased: 0, expires: 30), at: 1)
            let grant = try await h.request(.post, "/v1/users/u1/grants", key: H.adminKey,
                                            json: #"{"entitlement":"basic","expires_at":"\#(Day.iso(20))","reason":"support"}"#)
            #expect(grant.status == .created)
            let recorded = try await h.eventCount()
            // PostgreSQL holds the feed back while an older transaction anywhere is open: wait until
            // it shows every event, so the GET and the HEAD of /v1/events see the same page.
            _ = try await readLog(h.store, atLeast: recorded)
            let routed = try ServedRoutes.all(store: h.store).filter { $0.method == .get }.map(\.path)
            #expect(Set(routed) == Set(requests.keys), "GET routes without a request here: \(Set(routed).subtracting(requests.keys).sorted())")
            for route in routed.sorted() {
                guard let request = requests[route] else { continue }
                let get = try await h.request(.get, request.path, key: request.key)
                let head = try await h.request(.head, request.path, key: request.key)
                #expect(get.status == .ok, "\(route): \(String(buffer: get.body))")
                #expect(get.body.readableBytes > 0, "\(route)")
                #expect(head.status == .ok, "\(route)")
                #expect(head.body.readableBytes == 0, "\(route)")
                #expect(head.headers[.contentType] == get.headers[.contentType], "\(route)")
                #expect(head.headers[.contentLength] == String(get.body.readableBytes), "\(route)")
                // Behind the same key check: without a key, the GET's 401, without a body.
                if request.key != nil {
                    let unauthorized = try await h.request(.head, request.path)
                    #expect(unauthorized.status == .unauthorized, "\(route)")
                    #expect(unauthorized.body.readableBytes == 0, "\(route)")
                }
            }
            #expect(try await h.request(.head, "/v1/subscriptions/999", key: H.readKey).status == .notFound)
            #expect(try await h.request(.head, "/v1/apple/notifications/v2").headers[.allow] == "POST")
            #expect(try await h.eventCount() == recorded)
        }
    }

    @Test(arguments: TestDatabases.dialects)
    func atAndAsOfQueriesGrantsAndAnUnknownUser(_ dialect: StorageDialect) async throws {
        try await H.run(dialect) { h in
            _ = try await h.submit(user: "u1", H.transaction("1000", purchased: 0, expires: 30), at: 0)
            _ = try await h.notify(.refund, transaction: H.transaction("1000", purchased: 0, expires: 30, signed: 5, revoked: 5), at: 5)
            let asOf = try await h.request(.get, "/v1/users/u1/entitlements?as_of=\(Day.iso(4))", key: H.readKey)
            #expect(try h.object(asOf)["as_of"] as? String == "2026-01-05T00:00:00.000Z")
            #expect(((try h.object(asOf)["entitlements"] as? [[String: Any]])?.first?["status"]) as? String == "active")
            // Known on day 4, evaluated on day 31: the refund was not known yet, the expiry has passed.
            let both = try h.object(try await h.request(.get, "/v1/users/u1/entitlements?as_of=\(Day.iso(4))&at=\(Day.iso(31))", key: H.readKey))
            #expect(both["as_of"] as? String == "2026-01-05T00:00:00.000Z")
            #expect(both["evaluated_at"] as? String == "2026-02-01T00:00:00.000Z")
            #expect(((both["entitlements"] as? [[String: Any]])?.first?["status"]) as? String == "expired")
            #expect(try await h.pro("u1", at: 6)?["status"] as? String == "refunded")
            // The ledger cannot know later than now (day 5): such an answer would change as facts
            // arrive. Up to a minute ahead is a client's fast clock, read as now.
            let future = try await h.request(.get, "/v1/users/u1/entitlements?as_of=\(Day.iso(6))", key: H.readKey)
            #expect(future.status == .badRequest)
            #expect(try h.object(future)["code"] as? String == "invalid_query")
            #expect(try h.object(future)["detail"] as? String == "as_of is later than now (2026-01-07T00:00:00.000Z, against the server's "
                + "2026-01-06T00:00:00.000Z), and the ledger cannot know what it will be told; to evaluate a later moment with what is known now, use at")
            let skewed = try h.object(try await h.request(.get, "/v1/users/u1/entitlements?as_of=2026-01-06T00:00:30Z", key: H.readKey))
            #expect(skewed["as_of"] as? String == "2026-01-06T00:00:00.000Z")

            h.clock.set(Day.date(6))
            let grant = try await h.request(.post, "/v1/users/u1/grants", key: H.adminKey,
                                             json: #"{"entitlement":"pro","expires_at":"\#(Day.iso(20))","reason":"support"}"#)
            #expect(grant.status == .created)
            let granted = try #require(try await h.pro("u1", at: 10))
            #expect(granted["active"] as? Bool == true)
            #expect(granted["source"] as? String == "grant")

            let unknown = try await h.request(.get, "/v1/users/nobody/entitlements", key: H.readKey)
            #expect(unknown.status == .ok)
            let nobody = try h.object(unknown)
            #expect((nobody["entitlements"] as? [Any])?.isEmpty == true)
            #expect((nobody["subscriptions"] as? [Any])?.isEmpty == true)
            #expect(nobody["user_id"] as? String == "nobody")
            // Without `as_of` the view says so with a null, not by leaving the field out.
            #expect(nobody["as_of"] is NSNull, "\(nobody)")
            #expect(nobody["position"] as? Int == 0, "\(nobody)")
            let events = try await h.request(.get, "/v1/users/u1/events?limit=2", key: H.readKey)
            #expect(((try h.object(events)["events"] as? [Any])?.count ?? 99) <= 2)
            // Paging with next_after visits each of the user's 4 events once, in log order (the fact and
            // its link, the refund, the grant). PostgreSQL holds events back while an older transaction
            // is open, as the global feed does, so an empty page means "try again".
            var after = "0-0"
            var positions: [Int] = []
            let deadline = ContinuousClock.now + .seconds(30)
            while positions.count < 4 && ContinuousClock.now < deadline {
                let page = try h.object(try await h.request(.get, "/v1/users/u1/events?limit=3&after=\(after)", key: H.readKey))
                let batch = (page["events"] as? [[String: Any]] ?? []).compactMap { $0["position"] as? Int }
                if batch.isEmpty { try await Task.sleep(for: .milliseconds(20)) }
                positions += batch
                after = try #require(page["next_after"] as? String)
            }
            #expect(positions.count == 4)
            #expect(positions == positions.sorted() && Set(positions).count == positions.count)
        }
    }

    /// The router matches the raw path, so ids in it arrive percent-encoded: they are decoded, and an
    /// id that could never be named in a path (control characters) is refused wherever it appears.
    @Test(arguments: TestDatabases.dialects)
    func idsInPathsArePercentDecodedAndCheckedLikeIdsInBodies(_ dialect: StorageDialect) async throws {
        try await H.run(dialect) { h in
            let user = "alice@example.com/phone 1"
            _ = try await h.submit(user: user, H.transaction("1000", purchased: 0, expires: 30), at: 0)
            let encoded = try #require(user.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
            let view = try h.object(try await h.request(.get, "/v1/users/\(encoded)/entitlements?at=\(Day.iso(1))", key: H.readKey))
            #expect(view["user_id"] as? String == user)
            #expect(((view["entitlements"] as? [[String: Any]])?.first?["active"]) as? Bool == true)
            #expect(try await !h.events(of: encoded, atLeast: 1).isEmpty)
            h.clock.set(Day.date(1))
            let grant = try await h.request(.post, "/v1/users/\(encoded)/grants", key: H.adminKey,
                                             json: #"{"entitlement":"pro","expires_at":"\#(Day.iso(20))","reason":"support"}"#)
            #expect(grant.status == .created)
            #expect(try h.object(grant)["user_id"] as? String == user)
            #expect(try await h.request(.get, "/v1/subscriptions/%31000", key: H.readKey).status == .ok)
            // A U+FEFF at the start of an id is kept, as in a body: Foundation's decoding dropped it,
            // so this user could not be read by path, and a path naming it read another user.
            _ = try await h.submit(user: "\u{FEFF}bom", H.transaction("1500", original: "1500", purchased: 0, expires: 30), at: 1)
            let bomAnswer = try await h.request(.get, "/v1/users/%EF%BB%BFbom/entitlements?at=\(Day.iso(1))", key: H.readKey)
            // The text itself: JSONSerialization on Linux drops a leading U+FEFF from strings too.
            #expect(String(buffer: bomAnswer.body).hasPrefix("{\"user_id\":\"\u{FEFF}bom\","), "\(String(buffer: bomAnswer.body).prefix(40))")
            let bom = try h.object(bomAnswer)
            #expect((bom["subscriptions"] as? [[String: Any]])?.first?["original_transaction_id"] as? String == "1500")
            let plain = try h.object(try await h.request(.get, "/v1/users/bom/entitlements?at=\(Day.iso(1))", key: H.readKey))
            #expect((plain["subscriptions"] as? [Any])?.isEmpty == true)

            let precomposed = try await h.request(.post, "/v1/users/caf%C3%A9/grants", key: H.adminKey,
                                                  json: #"{"entitlement":"pro","expires_at":"\#(Day.iso(20))","reason":"support"}"#)
            #expect(precomposed.status == .created)
            let before = try await h.eventCount()
            let control = try await h.request(.get, "/v1/users/a%01b/entitlements", key: H.readKey)
            #expect(control.status == .badRequest)
            #expect(try h.object(control)["code"] as? String == "invalid_path")
            for bad in ["a%FFb", "a%ZZ", "a%"] {
                let undecodable = try await h.request(.get, "/v1/users/\(bad)/entitlements", key: H.readKey)
                #expect(undecodable.status == .badRequest, "\(bad)")
                #expect(try h.object(undecodable)["code"] as? String == "invalid_path", "\(bad)")
            }
            let long = try await h.request(.post, "/v1/users/\(String(repeating: "x", count: 257))/grants", key: H.adminKey,
                                            json: #"{"entitlement":"pro","expires_at":"\#(Day.iso(20))","reason":"support"}"#)
            #expect(try h.object(long)["code"] as? String == "invalid_path")
            // A decomposed é: canonically equal to café in Swift, another stream in the database.
            let decomposed = try await h.request(.post, "/v1/users/cafe%CC%81/grants", key: H.adminKey,
                                                 json: #"{"entitlement":"pro","expires_at":"\#(Day.iso(20))","reason":"support"}"#)
            #expect(try h.object(decomposed)["code"] as? String == "invalid_path")
            let submitted = try await h.request(.post, "/v1/apple/transactions", key: H.ingestKey, json: #"{"user_id":"a\u0000b","signed_transaction":"x"}"#)
            #expect(submitted.status == .badRequest)
            #expect(try h.object(submitted)["code"] as? String == "malformed_body")
            #expect(try await h.eventCount() == before)
        }
    }

    /// A grant must name an entitlement a product grants, end in the future and say why; anything else
    /// is refused with nothing appended. Other refusals that need no store: an empty receipt, a bare
    /// position or a signed number as a cursor or limit, and a 401 that names its scheme.
    @Test(arguments: TestDatabases.dialects)
    func badGrantsReceiptsAndCursorsAreRefusedBeforeTheStore(_ dialect: StorageDialect) async throws {
        try await H.run(dialect) { h in
            h.clock.set(Day.date(10))
            let cases: [(String, String)] = [
                (#"{"entitlement":"pr0","expires_at":"\#(Day.iso(20))","reason":"support"}"#, "unknown_entitlement"),
                (#"{"entitlement":"pro","expires_at":"\#(Day.iso(20))","reason":"  "}"#, "malformed_body"),
                (#"{"entitlement":"pro","expires_at":"\#(Day.iso(5))","reason":"support"}"#, "malformed_body"),
                // PostgreSQL's jsonb cannot hold U+0000: in the user's document it would break every read.
                (#"{"entitlement":"pro","expires_at":"\#(Day.iso(20))","reason":"support ticket\u0000"}"#, "malformed_body"),
                (#"{"entitlement":"pro","expires_at":"\#(Day.iso(20))","reason":"support\u001b[2J"}"#, "malformed_body"),
            ]
            for (json, code) in cases {
                let response = try await h.request(.post, "/v1/users/u1/grants", key: H.adminKey, json: json)
                #expect(response.status == .badRequest, "\(json)")
                #expect(try h.object(response)["code"] as? String == code, "\(json)")
            }
            // Empty, or not base64 (Apple would answer 21002 after a round trip, and the retries).
            for data in ["", "!!! not base64 !!!"] {
                let receipt = try await h.request(.post, "/v1/apple/receipts", key: H.ingestKey, json: #"{"user_id":"u1","receipt_data":"\#(data)"}"#)
                #expect(receipt.status == .badRequest, "\(data)")
                #expect(try h.object(receipt)["code"] as? String == "malformed_body", "\(data)")
            }
            // A StoreKit 2 JWS sent as a receipt is told what it holds and where it goes.
            let renewal = JWSRenewalInfoDecodedPayload(
                originalTransactionId: "1000", autoRenewProductId: "pro.monthly", productId: "pro.monthly",
                autoRenewStatus: .on, signedDate: Day.apple(0), environment: .sandbox
            )
            for (jws, detail) in [
                (try h.pki.signTransaction(H.transaction("1000", purchased: 0, expires: 30)),
                 "a signed transaction (StoreKit 2), not an app receipt; submit it as signed_transaction instead"),
                (try h.pki.signRenewalInfo(renewal),
                 "signed renewal info (StoreKit 2), not an app receipt; submit it as signed_renewal_info, with its transaction as signed_transaction"),
                (try h.pki.signNotification(type: .subscribed, bundleId: H.bundleId, environment: .sandbox,
                                            transaction: H.transaction("1000", purchased: 0, expires: 30), signedDate: Day.apple(0)),
                 "a signed App Store Server Notification, not an app receipt; Apple posts those to /v1/apple/notifications/v2"),
                (try h.pki.signAppTransaction(AppTransactionDecodedPayload(receiptType: .sandbox, bundleId: H.bundleId, applicationVersion: "1", receiptCreationDate: Day.apple(0))),
                 "a signed AppTransaction (StoreKit 2), not an app receipt; the ledger records purchases: submit a signed transaction as signed_transaction"),
                ("eyJhbGciOiJFUzI1NiJ9.bm90IGpzb24.c2ln", "a signed JWS (StoreKit 2), not an app receipt; submit a signed transaction as signed_transaction instead"),
            ] {
                let storeKit2 = try await h.request(.post, "/v1/apple/receipts", key: H.ingestKey, json: #"{"user_id":"u1","receipt_data":"\#(jws)"}"#)
                #expect(storeKit2.status == .badRequest)
                #expect(try h.object(storeKit2)["detail"] as? String == "receipt_data holds " + detail)
            }
            #expect(try await h.eventCount() == 0)

            let bare = try await h.request(.get, "/v1/events?after=5", key: H.readKey)
            #expect(bare.status == .badRequest)
            #expect(try h.object(bare)["code"] as? String == "invalid_query")
            // Only the digits the spec's patterns allow: a sign or a space is not a number here.
            for query in ["after=%2B1-2", "after=1-%2B2", "limit=%2B5", "limit=%205", "limit=0005"] {
                for path in ["/v1/events?\(query)", "/v1/users/u1/events?\(query)"] {
                    let signed = try await h.request(.get, path, key: H.readKey)
                    #expect(signed.status == .badRequest, "\(path)")
                    #expect(try h.object(signed)["code"] as? String == "invalid_query", "\(path)")
                }
            }
            // The detail says what form is taken, so `05` does not read as out of range.
            let zero = try await h.request(.get, "/v1/events?limit=05", key: H.readKey)
            #expect(try h.object(zero)["detail"] as? String == "limit must be a whole number from 1 to 1000 in plain digits, without a sign or leading zeros (got 05)")
            #expect(try await h.request(.get, "/v1/events?after=0-0&limit=1000", key: H.readKey).status == .ok)
            let streamed = try await h.request(.get, "/v1/events?limit=0", key: H.readKey, headers: [.accept: "application/x-ndjson"])
            #expect(streamed.status == .badRequest)
            let unauthorized = try await h.request(.get, "/v1/users/u1/entitlements")
            #expect(unauthorized.headers[.wwwAuthenticate] == "Bearer")
        }
    }

    @Test(arguments: TestDatabases.dialects)
    func theEventFeedPagesAndStreamsNDJSON(_ dialect: StorageDialect) async throws {
        try await H.run(dialect) { h in
            _ = try await h.submit(user: "u1", H.transaction("1000", purchased: 0, expires: 30), at: 0)
            _ = try await h.notify(.didRenew, transaction: H.transaction("1001", purchased: 30, expires: 60), at: 30)
            let total = try await readLog(h.store, atLeast: 3).events.count
            let page = try await h.request(.get, "/v1/events?limit=2", key: H.readKey)
            let body = try h.object(page)
            #expect((body["events"] as? [Any])?.count == 2)
            let next = try #require(body["next_after"] as? String)
            let rest = try await h.request(.get, "/v1/events?after=\(next)&limit=1000", key: H.readKey)
            #expect((try h.object(rest)["events"] as? [Any])?.count == total - 2)
            // A reader that has caught up (or holds a cursor past the end) gets an empty page whose
            // next_after is its own cursor: where it waits for more.
            let last = try #require(try h.object(rest)["next_after"] as? String)
            let caughtUp = try h.object(try await h.request(.get, "/v1/events?after=\(last)", key: H.readKey))
            #expect((caughtUp["events"] as? [Any])?.isEmpty == true)
            #expect(caughtUp["next_after"] as? String == last)
            // SQLite's cursors carry transaction 0 and a given one is not read (docs/api.md);
            // PostgreSQL orders by transaction first, so one from the future is past the end.
            let ahead = try h.object(try await h.request(.get, "/v1/events?after=9999999999-0", key: H.readKey))
            #expect((ahead["events"] as? [Any])?.count == (dialect == .sqlite ? total : 0))
            #expect(try await h.request(.get, "/v1/events?limit=5000", key: H.readKey).status == .badRequest)

            let stream = try await h.request(.get, "/v1/events", key: H.readKey, headers: [.accept: "application/x-ndjson"])
            #expect(stream.headers[.contentType] == "application/x-ndjson")
            let lines = String(buffer: stream.body).split(separator: "\n")
            #expect(lines.count == total)
            for line in lines {
                let event = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
                #expect(event?["type"] is String)
                #expect(event?["data"] is [String: Any])
                // Every key is present, a missing dedupe key as null.
                #expect(event?.keys.contains("dedupe_key") == true)
            }
        }
    }

    /// The stream reads the log a page at a time and writes a page in chunks (so a stalled reader
    /// holds little): across many of both, every event comes once, in the paged feed's order.
    @Test(arguments: TestDatabases.dialects)
    func theNDJSONStreamCarriesEveryEventOnceAcrossPagesAndChunks(_ dialect: StorageDialect) async throws {
        try await H.run(dialect) { h in
            for index in 0..<130 {
                let id = "\(5000 + index)"
                _ = try await h.notify(.subscribed, .initialBuy, transaction: H.transaction(id, original: id, purchased: 0, expires: 30), at: 0)
            }
            let total = try await readLog(h.store, atLeast: 130).events.count
            #expect(total > 2 * LedgerRoutes.ndjsonPage)
            let paged = try #require(try h.object(try await h.request(.get, "/v1/events?limit=1000", key: H.readKey))["events"] as? [[String: Any]])
            let stream = try await h.request(.get, "/v1/events", key: H.readKey, headers: [.accept: "application/x-ndjson"])
            #expect(stream.body.readableBytes > 2 * LedgerRoutes.ndjsonChunk)
            let streamed = try String(buffer: stream.body).split(separator: "\n").map {
                try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
            }
            #expect(streamed.count == total)
            #expect(streamed.map { $0["event_id"] as? String } == paged.map { $0["event_id"] as? String })
        }
    }

    /// A receipt goes to production first and, on its 21007, the same request to the sandbox: with
    /// verifyReceipt's default secret when no app is named, with the named app's own when `bundle_id`
    /// is given. Apple's other answers are told apart as the docs say.
    @Test(arguments: TestDatabases.dialects)
    func receiptsAreValidatedThroughVerifyReceiptWithTheSandboxRedirect(_ dialect: StorageDialect) async throws {
        /// What the fake should have been sent, old transactions included.
        @Sendable func sent(_ endpoint: String, _ receipt: String, _ password: String) -> FakeVerifyReceipt.Received {
            FakeVerifyReceipt.Received(endpoint: endpoint, request: VerifyReceiptRequest(receiptData: receipt, password: password, excludeOldTransactions: false))
        }
        try await H.run(dialect) { h in
            h.clock.set(Day.date(10))
            let unnamedStart = h.verifyReceipt.count
            let response = try await h.request(.post, "/v1/apple/receipts", key: H.ingestKey, json: #"{"user_id":"u9","receipt_data":"sandbox-receipt"}"#)
            #expect(response.status == .ok)
            #expect(h.verifyReceipt.since(unnamedStart) == [
                sent("production", "sandbox-receipt", H.primarySecret), sent("sandbox", "sandbox-receipt", H.primarySecret),
            ])
            let entitlement = try #require((try h.object(response)["entitlements"] as? [[String: Any]])?.first)
            #expect(entitlement["active"] as? Bool == true)
            #expect(entitlement["original_transaction_id"] as? String == "3000")
            // The event keeps Apple's answer byte for byte, not a re-encoding of the fields decoded.
            let recorded = try #require(try await h.store.readStream("user-u9").first { $0.type == "apple.receipt.validated" })
            #expect(try JSONDecoder().decode(AppleFact.self, from: recorded.data).raw == FakeVerifyReceipt.sandboxResponse)
            let down = try await h.request(.post, "/v1/apple/receipts", key: H.ingestKey, json: #"{"user_id":"u9","receipt_data":"flaky-receipt"}"#)
            #expect(down.status == .badGateway)
            #expect(try h.object(down)["code"] as? String == "apple_unavailable")
            // Answers that say nothing of the receipt are Apple's side, not a bad receipt: a 21000
            // (the request arrived changed) and environments that contradict each other.
            let unsettledBefore = try await h.eventCount()
            let moved = try await h.request(.post, "/v1/apple/receipts", key: H.ingestKey, json: #"{"user_id":"u9","receipt_data":"moved-receipt"}"#)
            #expect(moved.status == .badGateway)
            #expect(try h.object(moved)["code"] as? String == "apple_unavailable")
            #expect((try h.object(moved)["detail"] as? String)?.contains("/production answered status 21000") == true)
            let contradicting = try await h.request(.post, "/v1/apple/receipts", key: H.ingestKey, json: #"{"user_id":"u9","receipt_data":"contradicting-receipt"}"#)
            #expect(contradicting.status == .badGateway)
            #expect(try h.object(contradicting)["code"] as? String == "apple_unavailable")
            #expect((try h.object(contradicting)["detail"] as? String)?.hasPrefix("verifyReceipt's answers settle on no environment") == true)
            #expect(try await h.eventCount() == unsettledBefore)
            // 21004: the server's shared secret is wrong, which the client cannot mend. Production's
            // answer is final: the sandbox is not asked.
            let secretStart = h.verifyReceipt.count
            let secret = try await h.request(.post, "/v1/apple/receipts", key: H.ingestKey, json: #"{"user_id":"u9","receipt_data":"wrong-secret-receipt"}"#)
            #expect(h.verifyReceipt.since(secretStart) == [sent("production", "wrong-secret-receipt", H.primarySecret)])
            #expect(secret.status == .internalServerError)
            #expect(secret.headers[.contentType] == "application/problem+json")
            #expect(try h.object(secret)["code"] as? String == "shared_secret_rejected")
            // Unless the receipt itself says it is an app not served here: Apple checks the secret
            // against the receipt's app, so that is the client's input.
            let foreign = try AppleSamples.text("xcode/xcode-app-receipt-empty")
            #expect(foreign.hasPrefix(FakeVerifyReceipt.foreignReceiptPrefix))
            let countBefore = try await h.eventCount()
            let notOurs = try await h.request(.post, "/v1/apple/receipts", key: H.ingestKey, json: #"{"user_id":"u9","receipt_data":"\#(foreign)"}"#)
            #expect(notOurs.status == .badRequest)
            #expect(try h.object(notOurs)["code"] as? String == "unknown_app")
            #expect(try h.object(notOurs)["detail"] as? String == "the receipt is for bundle id \(AppleSamples.xcodeReceiptApp), which is not a configured app (verifyReceipt refused the shared secret sent: status 21004)")
            #expect(try await h.eventCount() == countBefore)

            // `bundle_id` names the app (and its shared secret); one that is not configured is refused
            // before Apple is asked, and the receipt's own app must be the one named.
            let before = try await h.eventCount()
            let otherStart = h.verifyReceipt.count
            let other = try await h.request(.post, "/v1/apple/receipts", key: H.ingestKey,
                                            json: #"{"user_id":"u9","receipt_data":"sandbox-receipt","bundle_id":"com.other.app"}"#)
            #expect(other.status == .badRequest)
            #expect(try h.object(other)["code"] as? String == "unknown_app")
            #expect(try await h.eventCount() == before)
            #expect(h.verifyReceipt.count == otherStart, "\(h.verifyReceipt.since(otherStart))")
            let namedStart = h.verifyReceipt.count
            let named = try await h.request(.post, "/v1/apple/receipts", key: H.ingestKey,
                                            json: #"{"user_id":"u9","receipt_data":"sandbox-receipt","bundle_id":"com.example.app"}"#)
            #expect(named.status == .ok)
            #expect(h.verifyReceipt.since(namedStart) == [
                sent("production", "sandbox-receipt", H.appSecret), sent("sandbox", "sandbox-receipt", H.appSecret),
            ])
        }
    }

    /// A receipt states no product type, so an entry without an expiry reads as non-consumable. A
    /// consumable the app has not finished is still listed: the type Apple signed for it stays,
    /// so it does not become a lifetime purchase when the receipt arrives after the transaction.
    @Test(arguments: TestDatabases.dialects)
    func aReceiptListingASignedConsumableLeavesItConsumable(_ dialect: StorageDialect) async throws {
        try await H.run(dialect) { h in
            let coins = H.transaction("3500", original: "3500", product: "coins.100", purchased: 1, expires: nil, type: .consumable)
            #expect(try await h.submit(user: "u7", coins, at: 1).status == .ok)
            h.clock.set(Day.date(10))
            let receipt = try await h.request(.post, "/v1/apple/receipts", key: H.ingestKey, json: #"{"user_id":"u7","receipt_data":"consumable-receipt"}"#)
            #expect(receipt.status == .ok)
            let chain = try h.object(try await h.request(.get, "/v1/subscriptions/3500?at=\(Day.iso(11))", key: H.readKey))
            #expect(chain["status"] as? String == "expired")
            #expect(chain["active"] as? Bool == false)
            // A consumable's access ends at its purchase.
            #expect((chain["expires_at"] as? String)?.hasPrefix(String(Day.iso(1).prefix(19))) == true)
        }
    }

    /// A V1 notification with the app's password is recorded once (Apple's retry is a duplicate); one
    /// from an environment the app does not accept is refused like a V2 one, and so is a receipt.
    @Test(arguments: TestDatabases.dialects)
    func v1NotificationsAreRecordedOnceAndTheirEnvironmentIsChecked(_ dialect: StorageDialect) async throws {
        let body = #"{"notification_type":"INITIAL_BUY","password":"s3cret","environment":"Sandbox","bid":"com.example.app","unified_receipt":{"environment":"Sandbox","status":0,"latest_receipt_info":[{"quantity":"1","product_id":"pro.monthly","transaction_id":"5000","original_transaction_id":"5000","purchase_date_ms":"\#(Day.ms(0))","expires_date_ms":"\#(Day.ms(30))","is_trial_period":"false"}]}}"#
        try await H.run(dialect) { h in
            let first = try h.object(try await h.request(.post, "/v1/apple/notifications/v1", json: body))
            #expect(first["result"] as? String == "recorded")
            let again = try h.object(try await h.request(.post, "/v1/apple/notifications/v1", json: body))
            #expect(again["result"] as? String == "duplicate")
            #expect(again["event_id"] as? String == first["event_id"] as? String)
            #expect(try await h.eventCount() == 1)
        }
        try await H.run(dialect, environments: [.production]) { h in
            let refused = try await h.request(.post, "/v1/apple/notifications/v1", json: body)
            #expect(refused.status == .badRequest)
            #expect(try h.object(refused)["code"] as? String == "environment_not_accepted")
            h.clock.set(Day.date(10))
            let receipt = try await h.request(.post, "/v1/apple/receipts", key: H.ingestKey, json: #"{"user_id":"u9","receipt_data":"sandbox-receipt"}"#)
            #expect(receipt.status == .badRequest)
            #expect(try h.object(receipt)["code"] as? String == "environment_not_accepted")
            #expect(try await h.eventCount() == 0)
            #expect(try await h.store.rejections(limit: 10).map(\.code) == ["environment_not_accepted"])
        }
    }

    /// A subscription id holding U+0000 (escaped, so the JSON is valid) would name a stream or a
    /// document SQLite reads back cut at the NUL and PostgreSQL cannot store: refused alike, 400,
    /// nothing appended (each refusal is kept), whether it names the fact's own stream or only
    /// renewal info in it.
    @Test(arguments: TestDatabases.dialects)
    func aV1NotificationNamingASubscriptionWithNULIsRefused(_ dialect: StorageDialect) async throws {
        let streamNamed = #"{"notification_type":"INITIAL_BUY","password":"s3cret","environment":"Sandbox","bid":"com.example.app","unified_receipt":{"environment":"Sandbox","status":0,"latest_receipt_info":[{"quantity":"1","product_id":"pro.monthly","transaction_id":"5000","original_transaction_id":"50\u000000","purchase_date_ms":"\#(Day.ms(0))","expires_date_ms":"\#(Day.ms(30))","is_trial_period":"false"}]}}"#
        let renewalNamed = #"{"notification_type":"DID_RENEW","password":"s3cret","environment":"Sandbox","bid":"com.example.app","unified_receipt":{"environment":"Sandbox","status":0,"latest_receipt_info":[{"quantity":"1","product_id":"pro.monthly","transaction_id":"5000","original_transaction_id":"5000","purchase_date_ms":"\#(Day.ms(0))","expires_date_ms":"\#(Day.ms(30))","is_trial_period":"false"}],"pending_renewal_info":[{"auto_renew_product_id":"pro.monthly","auto_renew_status":"1","original_transaction_id":"60\u000000","product_id":"pro.monthly"}]}}"#
        try await H.run(dialect) { h in
            for (body, id) in [(streamNamed, "50"), (renewalNamed, "60")] {
                let refused = try await h.request(.post, "/v1/apple/notifications/v1", json: body)
                #expect(refused.status == .badRequest)
                let problem = try h.object(refused)
                #expect(problem["code"] as? String == "malformed_body", "\(problem)")
                // The ledger's refusal, before the store: the stores refuse such names too, in other words.
                #expect((problem["detail"] as? String)?.hasPrefix("the subscription id \"\(id)\\0") == true, "\(problem)")
            }
            #expect(try await h.eventCount() == 0)
            #expect(try await h.store.streamVersion("subscription-50") == 0)
            #expect(try await h.store.streamVersion("subscription-5000") == 0)
            #expect(try await h.store.projectionDocuments().isEmpty)
            #expect(try await h.store.rejections(limit: 10).map(\.code) == ["malformed_body", "malformed_body"])
        }
    }

    /// Foundation's decoder reads a trailing comma and keeps the first of a name given twice; a body
    /// kept as sent must read the same to every reader (an auditor's JSON parser, a proxy that kept
    /// the last password), so such bodies are refused at every endpoint, with nothing appended.
    @Test(arguments: TestDatabases.dialects)
    func bodiesThatOtherReadersWouldReadDifferentlyAreRefused(_ dialect: StorageDialect) async throws {
        let v1 = #"{"notification_type":"INITIAL_BUY","password":"s3cret","environment":"Sandbox","bid":"com.example.app","unified_receipt":{"environment":"Sandbox","status":0,"latest_receipt_info":[{"quantity":"1","product_id":"pro.monthly","transaction_id":"5000","original_transaction_id":"5000","purchase_date_ms":"\#(Day.ms(0))","expires_date_ms":"\#(Day.ms(30))","is_trial_period":"false"}]}}"#
        try await H.run(dialect) { h in
            h.clock.set(Day.date(1))
            let jws = try h.pki.signNotification(
                type: .subscribed, subtype: .initialBuy, bundleId: H.bundleId, environment: .sandbox,
                transaction: H.transaction("1000", purchased: 0, expires: 30), renewalInfo: nil, signedDate: Day.apple(1)
            )
            let transaction = try h.pki.signTransaction(H.transaction("2000", original: "2000", purchased: 0, expires: 30))
            for (path, key, body, detail) in [
                ("/v1/apple/notifications/v1", nil, String(v1.dropLast()) + ",}",
                 "the body is not an App Store Server Notification V1: not valid JSON: a comma cannot come right before '}' (line 1, column \(v1.count))"),
                ("/v1/apple/notifications/v1", nil, v1.replacingOccurrences(of: #""password":"s3cret","#, with: #""password":"s3cret","password":"other","#),
                 "the body is not an App Store Server Notification V1: not valid JSON: the field name \"password\" is given twice in this object (line 1, column 56)"),
                ("/v1/apple/notifications/v2", nil, #"{"signedPayload":"\#(jws)",}"#,
                 "notification body is not valid JSON: a comma cannot come right before '}' (line 1, column \(jws.count + 20))"),
                ("/v1/apple/notifications/v2", nil, #"{"signedPayload":"\#(jws)","signedPayload":"x"}"#,
                 "notification body is not valid JSON: the field name \"signedPayload\" is given twice in this object (line 1, column \(jws.count + 21))"),
                ("/v1/apple/transactions", H.ingestKey, #"{"user_id":"u1","signed_transaction":"\#(transaction)","user_id":"u2"}"#,
                 "not valid JSON: the field name \"user_id\" is given twice in this object (line 1, column \(transaction.count + 41))"),
                ("/v1/users/u1/grants", H.adminKey, #"{"entitlement":"pro","expires_at":"2027-01-01T00:00:00Z","reason":"x",}"#,
                 "not valid JSON: a comma cannot come right before '}' (line 1, column 70)"),
                // Said before a field's fault the lenient read finds, so one fix is not followed by another.
                ("/v1/users/u1/grants", H.adminKey, #"{"entitlement":"pro","expires_at":"2027-01-01T00:00:00Z",}"#,
                 "not valid JSON: a comma cannot come right before '}' (line 1, column 57)"),
                ("/v1/apple/transactions", H.ingestKey, #"{"user_id":"u1",}"#, "not valid JSON: a comma cannot come right before '}' (line 1, column 16)"),
                ("/v1/apple/transactions", H.ingestKey, #"{"user_id":5,"signed_transaction":"x",}"#,
                 "not valid JSON: a comma cannot come right before '}' (line 1, column 38)"),
                ("/v1/apple/transactions", H.ingestKey, #"{"user":"u1","user":"u2"}"#,
                 "not valid JSON: the field name \"user\" is given twice in this object (line 1, column 14)"),
                ("/v1/apple/notifications/v1", nil, #"{"notification_type":"INITIAL_BUY","unified_receipt":{"status":"zero"},}"#,
                 "the body is not an App Store Server Notification V1: not valid JSON: a comma cannot come right before '}' (line 1, column 71)"),
            ] as [(String, String?, String, String)] {
                let response = try await h.request(.post, path, key: key, json: body)
                #expect(response.status == .badRequest, "\(path)")
                #expect(try h.object(response)["code"] as? String == "malformed_body", "\(path)")
                let said = try h.object(response)["detail"] as? String
                #expect(said == detail, "\(path): \(said ?? "-")")
            }
            #expect(try await h.eventCount() == 0)
            // The webhooks' refusals are filed, the passwords in them redacted.
            let rejections = try await h.store.rejections(limit: 10)
            #expect(rejections.count == 5)
            #expect(!rejections.contains { $0.body.contains("s3cret") || $0.body.contains("other") })
        }
    }

    /// What a backend submitted or an operator granted names the API key it came with, so an auditor
    /// reading the history sees who did it; Apple's webhooks name none.
    @Test(arguments: TestDatabases.dialects)
    func eventsRecordedWithAnAPIKeyNameIt(_ dialect: StorageDialect) async throws {
        try await H.run(dialect) { h in
            #expect(try await h.submit(user: "u1", H.transaction("1000", purchased: 0, expires: 30), at: 1).status == .ok)
            let grant = try await h.request(
                .post, "/v1/users/u1/grants", key: H.adminKey,
                json: #"{"entitlement":"pro","expires_at":"\#(Day.iso(60))","reason":"support"}"#
            )
            #expect(grant.status == .created)
            let webhook = try await h.notify(.didRenew, transaction: H.transaction("1001", original: "1000", purchased: 30, expires: 60), at: 30)
            #expect(webhook.status == .ok)
            // Read from the streams, not the global feed, which on PostgreSQL holds back events while
            // other tests' transactions are open.
            let events = try await h.store.readStream(LedgerEventType.userStream("u1")) + h.store.readStream(LedgerEventType.chainStream("1000"))
            let keys = try events.map { event in
                (event.type, ((try JSONSerialization.jsonObject(with: event.metadata) as? [String: Any])?["apiKey"] as? String) ?? "-")
            }
            #expect(keys.count >= 4, "\(keys)")
            for (type, key) in keys {
                switch type {
                case "apple.transaction", "user.linked": #expect(key == "backend", "\(keys)")
                case "entitlement.granted": #expect(key == "operator", "\(keys)")
                case "apple.notification.v2": #expect(key == "-", "\(keys)")
                default: Issue.record("unexpected event \(type)")
                }
            }
        }
    }

    /// A new server process on the same SQLite file, or the same PostgreSQL database, serves what the
    /// previous one recorded.
    @Test(arguments: TestDatabases.dialects)
    func restartingTheServerKeepsEverything(_ dialect: StorageDialect) async throws {
        let pki = try APIHarness.pki.get()
        let clock = ManualClock(Day.date(0))
        let recorded = Mutex<Int?>(nil)
        // One server's life over `store`: the first records a purchase, the next reads it back.
        @Sendable func serve(_ store: any EventStore, round: Int) async throws {
            try await store.migrate()
            let app = try APIHarness.application(store: store, pki: pki, clock: clock, verifyReceiptURL: "http://127.0.0.1:1")
            try await app.test(.live) { client in
                if round == 0 {
                    let jws = try pki.signTransaction(APIHarness.transaction("1000", purchased: 0, expires: 30))
                    let response = try await client.execute(uri: "/v1/apple/transactions", method: .post,
                        headers: [.authorization: "Bearer \(APIHarness.ingestKey)", .contentType: "application/json"],
                        body: ByteBuffer(string: #"{"user_id":"u1","signed_transaction":"\#(jws)"}"#))
                    #expect(response.status == .ok)
                    let count = try await store.eventCount()
                    recorded.withLock { $0 = count }
                } else {
                    let response = try await client.execute(uri: "/v1/users/u1/entitlements?at=\(Day.iso(1))", method: .get,
                        headers: [.authorization: "Bearer \(APIHarness.readKey)"])
                    #expect(String(buffer: response.body).contains(#""active":true"#))
                    #expect(try await store.eventCount() == recorded.withLock { $0 })
                }
            }
        }
        switch dialect {
        case .sqlite:
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("restart-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let path = directory.appendingPathComponent("ledger.sqlite").path
            for round in 0..<2 {
                let store = try await SQLiteEventStore.open(path: path, logger: TestDatabases.logger, now: { clock.now() })
                try await serve(store, round: round)
                try await store.shutdown()
            }
        case .postgres:
            guard let url = TestDatabases.postgresURL else { throw PostgreSQLRequired() }
            try await withPostgresSchema(url: url) { settings, _, _ in
                for round in 0..<2 {
                    let store = PostgresEventStore(settings: settings, logger: TestDatabases.logger, now: { clock.now() })
                    try await withRunning(store) { try await serve(store, round: round) }
                }
            }
        }
        #expect(recorded.withLock { $0 } ?? 0 > 0)
    }
}
