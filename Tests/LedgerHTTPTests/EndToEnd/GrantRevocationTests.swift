import AppStoreTesting
import EventStore
import EventStoreTesting
import Foundation
import HTTPTypes
import HummingbirdTesting
import Ledger
import NIOCore
import Testing

/// An operator withdraws a manual grant over HTTP, against SQLite and PostgreSQL: access ends from
/// the revoke on, earlier moments still show the grant, and a retried revoke records nothing.
@Suite("HTTP grant revocation end to end")
struct GrantRevocationTests {
    typealias H = APIHarness

    /// Makes a grant on `day` until `until` and returns its id.
    static func grant(_ h: APIHarness, user: String = "u1", on day: Double, until: Double, millisecond: Int = 0) async throws -> String {
        h.clock.set(Day.date(day))
        let expiresAt = Day.iso(until).dropLast() + String(format: ".%03dZ", millisecond)
        let response = try await h.request(
            .post, "/v1/users/\(user)/grants", key: H.adminKey,
            json: #"{"entitlement":"pro","expires_at":"\#(expiresAt)","reason":"support ticket 812"}"#
        )
        #expect(response.status == .created)
        return try #require(try h.object(response)["grant_id"] as? String)
    }

    static func revoke(_ h: APIHarness, user: String = "u1", _ grantId: String, reason: String = "granted to the wrong user", key: String = H.adminKey) async throws -> TestResponse {
        try await h.request(.post, "/v1/users/\(user)/grants/\(grantId)/revoke", key: key, json: #"{"reason":"\#(reason)"}"#)
    }

    @Test(arguments: TestDatabases.dialects)
    func aRevokedGrantEndsAtTheRevokeAndARetryRecordsNothing(_ dialect: StorageDialect) async throws {
        try await H.run(dialect) { h in
            let grantId = try await Self.grant(h, on: 0, until: 30)
            h.clock.set(Day.date(10))
            let revoked = try await Self.revoke(h, grantId)
            #expect(revoked.status == .ok)
            let body = try h.object(revoked)
            #expect(body["result"] as? String == "recorded")
            #expect(body["grant_id"] as? String == grantId)
            #expect(body["user_id"] as? String == "u1")
            #expect(body["entitlement"] as? String == "pro")
            #expect(body["expires_at"] as? String == "2026-01-31T00:00:00.000Z")
            #expect(body["reason"] as? String == "support ticket 812")
            #expect(body["revoked_at"] as? String == "2026-01-11T00:00:00.000Z")
            #expect(body["revoke_reason"] as? String == "granted to the wrong user")

            // Before the revoke the grant gave access, and the revoke to come is not shown; from it
            // on the grant shows revoked, not expired.
            let before = try #require(try await h.pro("u1", at: 5))
            #expect(before["active"] as? Bool == true)
            #expect(before["revoked_at"] is NSNull)
            let after = try #require(try await h.pro("u1", at: 12))
            #expect(after["active"] as? Bool == false)
            #expect(after["status"] as? String == "revoked")
            #expect(after["revoked_at"] as? String == "2026-01-11T00:00:00.000Z")
            #expect(after["source"] as? String == "grant")
            // What the ledger knew on day 5 is unchanged by the later revoke.
            let known = try h.object(try await h.request(.get, "/v1/users/u1/entitlements?as_of=\(Day.iso(5))&at=\(Day.iso(12))", key: H.readKey))
            #expect(((known["entitlements"] as? [[String: Any]])?.first?["active"]) as? Bool == true)

            // A retry, later and with another reason, answers the first revoke and records nothing.
            let events = try await h.eventCount()
            h.clock.set(Day.date(11))
            // Named in upper case and percent-encoded, it is the same grant.
            let again = try await Self.revoke(h, grantId.uppercased().replacingOccurrences(of: "-", with: "%2D"), reason: "retry")
            #expect(again.status == .ok)
            let repeated = try h.object(again)
            #expect(repeated["result"] as? String == "duplicate")
            #expect(repeated["revoked_at"] as? String == "2026-01-11T00:00:00.000Z")
            #expect(repeated["revoke_reason"] as? String == "granted to the wrong user")
            #expect(try await h.eventCount() == events)

            // The revoke is in the user's history, naming the grant, its entitlement and the key.
            let revokes = try await h.store.readStream(LedgerEventType.userStream("u1")).filter { $0.type == LedgerEventType.entitlementRevoked }
            #expect(revokes.count == 1)
            let record = try JSONDecoder().decode(ManualGrant.self, from: try #require(revokes.first).data)
            #expect(record.grantId == grantId && record.entitlement == "pro" && record.reason == "granted to the wrong user")
            let metadata = try JSONSerialization.jsonObject(with: try #require(revokes.first).metadata) as? [String: Any]
            #expect(metadata?["apiKey"] as? String == "operator")
            #expect(metadata?["source"] as? String == "POST /v1/users/{user_id}/grants/{grant_id}/revoke")
        }
    }

    /// An unknown grant, another user's grant, a grant that already ended, a blank reason and a key
    /// without the admin scope are refused, and nothing is recorded for any of them.
    @Test(arguments: TestDatabases.dialects)
    func refusedRevokesRecordNothing(_ dialect: StorageDialect) async throws {
        try await H.run(dialect) { h in
            let grantId = try await Self.grant(h, on: 0, until: 30)
            // Told to the millisecond (the detail had put .001 at .000, through a `Date`).
            let ended = try await Self.grant(h, on: 0, until: 5, millisecond: 1)
            h.clock.set(Day.date(10))
            let events = try await h.eventCount()

            let unknown = try await Self.revoke(h, "00000000-0000-4000-8000-000000000000")
            #expect(unknown.status == .notFound)
            #expect(unknown.headers[.contentType] == "application/problem+json")
            #expect(try h.object(unknown)["code"] as? String == "unknown_grant")
            #expect(try h.object(unknown)["detail"] as? String == "user u1 has no grant 00000000-0000-4000-8000-000000000000")
            let otherUser = try await Self.revoke(h, user: "u2", grantId)
            #expect(otherUser.status == .notFound)
            #expect(try h.object(otherUser)["code"] as? String == "unknown_grant")

            let over = try await Self.revoke(h, ended)
            #expect(over.status == .conflict)
            #expect(try h.object(over)["code"] as? String == "grant_ended")
            #expect(try h.object(over)["detail"] as? String == "grant \(ended) ended at 2026-01-06T00:00:00.001Z; there is nothing left to revoke")

            let blank = try await Self.revoke(h, grantId, reason: "  ")
            #expect(blank.status == .badRequest)
            #expect(try h.object(blank)["code"] as? String == "malformed_body")
            for (json, detail) in [
                ("{}", "missing field reason"), ("", "the body is empty; this endpoint takes a JSON object"),
                (#"["x"]"#, "the body must be a JSON object"), ("null", "the body must be a JSON object"),
                // A field's fault in JSON's words, not the decoder's Swift ones.
                (#"{"reason":7}"#, "reason must be a string"), (#"{"reason":null}"#, "reason must be a string, not null"),
            ] {
                let refused = try await h.request(.post, "/v1/users/u1/grants/\(grantId)/revoke", key: H.adminKey, json: json)
                #expect(refused.status == .badRequest)
                #expect(try h.object(refused)["code"] as? String == "malformed_body")
                #expect(try h.object(refused)["detail"] as? String == detail, "\(json)")
            }
            #expect(try await Self.revoke(h, grantId, key: H.ingestKey).status == .forbidden)
            #expect(try await Self.revoke(h, grantId, key: "not-a-key").status == .unauthorized)

            #expect(try await h.eventCount() == events)
            #expect(try await h.pro("u1", at: 12)?["active"] as? Bool == true)
        }
    }

    /// Revokes of one grant sent at once record one revocation: the check and the append hold the
    /// user document's lock, so the others see it and answer it as a duplicate. Each revoke has a
    /// connection of its own (one connection is answered a request at a time, which needs no lock),
    /// and each is sent but its last byte first, so all eight handlers wait on their bodies and
    /// then run together when the last bytes go.
    @Test(arguments: TestDatabases.dialects)
    func concurrentRevokesOfOneGrantRecordOne(_ dialect: StorageDialect) async throws {
        try await H.run(dialect) { h in
            let grantId = try await Self.grant(h, on: 0, until: 30)
            h.clock.set(Day.date(10))
            let events = try await h.eventCount()
            let port = try #require(h.client.port)
            var opening: [(channel: any Channel, answers: ReadRecorder, lastByte: ByteBuffer)] = []
            // Closed however the test ends: a half-sent request left open would hold the server's
            // shutdown until its request timeout.
            defer { for connection in opening { connection.channel.close(promise: nil) } }
            for attempt in 0..<8 {
                let body = #"{"reason":"attempt \#(attempt)"}"#
                let request = "POST /v1/users/u1/grants/\(grantId)/revoke HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(H.adminKey)\r\n"
                    + "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
                let (channel, answers) = try await RawConnection.connect(port: port)
                opening.append((channel, answers, ByteBuffer(string: String(request.suffix(1)))))
                try await channel.writeAndFlush(ByteBuffer(string: String(request.dropLast()))).get()
            }
            let connections = opening
            // Time for every handler to read its head and start waiting on its body (a handler
            // slower than this only makes the revokes overlap less).
            try await Task.sleep(for: .milliseconds(200))
            let results = try await withThrowingTaskGroup(of: String?.self) { group in
                for connection in connections {
                    group.addTask {
                        try await connection.channel.writeAndFlush(connection.lastByte).get()
                        let answer = try await connection.answers.waitForAnswer(after: 0).text
                        #expect(answer.hasPrefix("HTTP/1.1 200"), "\(answer)")
                        guard let split = answer.range(of: "\r\n\r\n") else { return nil }
                        let object = try JSONSerialization.jsonObject(with: Data(answer[split.upperBound...].utf8)) as? [String: Any]
                        return object?["result"] as? String
                    }
                }
                return try await group.reduce(into: [String?]()) { $0.append($1) }
            }
            #expect(results.filter { $0 == "recorded" }.count == 1, "\(results)")
            #expect(results.filter { $0 == "duplicate" }.count == 7, "\(results)")
            #expect(try await h.eventCount() == events + 1)
            let revokes = try await h.store.readStream(LedgerEventType.userStream("u1")).filter { $0.type == LedgerEventType.entitlementRevoked }
            #expect(revokes.count == 1)
        }
    }

    /// Of a subscription that expired and a grant revoked before it, the view reports the one that
    /// gave access last: a revoked grant ended at its revoke, not at the end it was made with.
    @Test(arguments: TestDatabases.dialects)
    func aRevokedGrantRanksByItsRevokeNotItsEndDate(_ dialect: StorageDialect) async throws {
        try await H.run(dialect) { h in
            #expect(try await h.submit(user: "u1", H.transaction("1000", purchased: 0, expires: 20), at: 0).status == .ok)
            let grantId = try await Self.grant(h, on: 0, until: 30)
            h.clock.set(Day.date(10))
            #expect(try await Self.revoke(h, grantId).status == .ok)
            let reported = try #require(try await h.pro("u1", at: 25))
            #expect(reported["source"] as? String == "app_store", "\(reported)")
            #expect(reported["status"] as? String == "expired")
            // While the subscription is active it is reported, as before.
            #expect(try await h.pro("u1", at: 15)?["source"] as? String == "app_store")
        }
    }

    /// An operator lists the user's grants to find the one to revoke: every grant, with its id and
    /// status now, though the view shows one entry per entitlement.
    @Test(arguments: TestDatabases.dialects)
    func theUsersGrantsAreListedWithTheirIdsAndStatus(_ dialect: StorageDialect) async throws {
        try await H.run(dialect) { h in
            // Told to the millisecond (the detail had put .001 at .000, through a `Date`).
            let ended = try await Self.grant(h, on: 0, until: 5, millisecond: 1)
            let revoked = try await Self.grant(h, on: 1, until: 30)
            let live = try await Self.grant(h, on: 2, until: 40)
            h.clock.set(Day.date(10))
            #expect(try await Self.revoke(h, revoked).status == .ok)
            h.clock.set(Day.date(12))

            let response = try await h.request(.get, "/v1/users/u1/grants", key: H.adminKey)
            #expect(response.status == .ok)
            let body = try h.object(response)
            #expect(body["user_id"] as? String == "u1")
            #expect(body["evaluated_at"] as? String == "2026-01-13T00:00:00.000Z")
            let grants = try #require(body["grants"] as? [[String: Any]])
            #expect(grants.map { $0["grant_id"] as? String } == [ended, revoked, live])
            #expect(grants.map { $0["status"] as? String } == ["expired", "revoked", "active"])
            #expect(grants.map { $0["active"] as? Bool } == [false, false, true])
            #expect(grants[1]["revoked_at"] as? String == "2026-01-11T00:00:00.000Z")
            #expect(grants[1]["revoke_reason"] as? String == "granted to the wrong user")
            #expect(grants[1]["granted_at"] as? String == "2026-01-02T00:00:00.000Z")
            #expect(grants[1]["expires_at"] as? String == "2026-01-31T00:00:00.000Z")
            #expect(grants[1]["reason"] as? String == "support ticket 812")
            #expect(grants[2]["revoked_at"] is NSNull && grants[2]["revoke_reason"] is NSNull)

            let nobody = try h.object(try await h.request(.get, "/v1/users/nobody/grants", key: H.adminKey))
            #expect((nobody["grants"] as? [Any])?.isEmpty == true)
            #expect(try await h.request(.get, "/v1/users/u1/grants", key: H.readKey).status == .forbidden)
            let query = try await h.request(.get, "/v1/users/u1/grants?at=\(Day.iso(1))", key: H.adminKey)
            #expect(query.status == .badRequest)
            #expect(try h.object(query)["detail"] as? String == "unknown query parameter at; this endpoint takes no query parameters")
        }
    }
}
