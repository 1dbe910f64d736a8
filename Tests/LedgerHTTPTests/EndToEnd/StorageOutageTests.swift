import AppStore
import AppStoreTesting
import EventStore
import EventStoreTesting
import Foundation
import HummingbirdTesting
import Ledger
import LedgerHTTP
import Testing

/// With PostgreSQL away, from the start or after connections exist, requests answer 503
/// `storage_unavailable` within the acquire timeout instead of hanging (so Apple retries), nothing
/// is recorded, and the same server serves again once the database is back.
struct StorageOutageTests {
    private typealias H = APIHarness

    @Test(.enabled(if: TestDatabases.dialects.contains(.postgres)))
    func requestsAnswer503WhilePostgreSQLIsAwayAndRecoverWhenItReturns() async throws {
        try await Self.withServerBehindRelay(acquireTimeout: .seconds(1)) { h, relay in
            let bought = H.transaction("1000", purchased: 0, expires: 30)
            let renewed = H.transaction("1001", purchased: 30, expires: 60)

            // Away from the start: nothing was ever connected.
            try await Self.expectUnavailable(h) { try await h.notify(.subscribed, transaction: bought, at: 0) }
            try await Self.expectUnavailable(h) { try await h.request(.get, "/v1/subscriptions/1000", key: H.readKey) }
            try await Self.expectUnavailable(h) { try await h.request(.get, "/ready") }
            #expect(try await h.request(.get, "/health").status == .ok)
            #expect(try await h.eventCount() == 0)

            relay.setUp(true)
            try await Self.eventuallyRecorded(h) { try await h.notify(.subscribed, transaction: bought, at: 0) }
            #expect(try await h.eventCount() == 1)
            #expect(try await h.request(.get, "/ready").status == .ok)

            // Away again, with the pool's connections open: they are dropped under it.
            relay.setUp(false)
            try await Self.expectUnavailable(h) { try await h.notify(.didRenew, transaction: renewed, at: 30) }
            // The feed reads its first page before answering, so it is a 503 too, not a 200 cut short.
            try await Self.expectUnavailable(h) {
                try await h.request(.get, "/v1/events?after=0-0", key: H.readKey, headers: [.accept: "application/x-ndjson"])
            }
            try await Self.expectUnavailable(h) { try await h.request(.get, "/v1/subscriptions/1000", key: H.readKey) }
            #expect(try await h.eventCount() == 1)

            relay.setUp(true)
            try await Self.eventuallyRecorded(h) { try await h.notify(.didRenew, transaction: renewed, at: 30) }
            #expect(try await h.eventCount() == 2)
            let chain = try h.object(try await h.request(.get, "/v1/subscriptions/1000?at=\(Day.iso(45))", key: H.readKey))
            #expect(chain["latest_transaction_id"] as? String == "1001")
            #expect(chain["status"] as? String == "active")
        }
    }

    /// `/ready` answers within its own short wait, not the acquire timeout requests wait (30 s
    /// here): a prober that gives up first (Kubernetes after 1 s) would log a timeout, not the
    /// 503 and its reason.
    @Test(.enabled(if: TestDatabases.dialects.contains(.postgres)))
    func readyAnswers503WithinItsOwnWaitWhilePostgreSQLIsAway() async throws {
        try await Self.withServerBehindRelay(acquireTimeout: .seconds(30)) { h, relay in
            let start = ContinuousClock.now
            let response = try await h.request(.get, "/ready")
            let waited = ContinuousClock.now - start
            #expect(response.status == .serviceUnavailable)
            let problem = try h.object(response)
            #expect(problem["code"] as? String == "storage_unavailable")
            #expect((problem["detail"] as? String)?.contains("does not answer") == true)
            #expect(waited >= HealthRoutes.readinessWait, "answered after \(waited)")
            // 500 ms of waiting and a little more; well under the 30 s acquire timeout even on a loaded CI machine.
            #expect(waited < .seconds(3), "answered after \(waited), not within the probe's wait")

            relay.setUp(true)
            let deadline = ContinuousClock.now + .seconds(30)
            var ready = try await h.request(.get, "/ready")
            while ready.status == .serviceUnavailable && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(200))
                ready = try await h.request(.get, "/ready")
            }
            #expect(ready.status == .ok)
        }
    }

    /// SQLite's outage: another process holding the file's one write lock past the busy timeout (5 s).
    /// A webhook is answered 503 `storage_unavailable`, so Apple retries, and records nothing; reads
    /// go on meanwhile (WAL); once the lock is let go, Apple's retry is recorded.
    @Test func aWebhookWhileAnotherWriterHoldsTheSQLiteFileIs503AndItsRetryIsRecorded() async throws {
        try await H.run(.sqlite) { h in
            let bought = H.transaction("1000", purchased: 0, expires: 30)
            try await h.fixture.whileAnotherWriterHoldsTheFile {
                let start = ContinuousClock.now
                let response = try await h.notify(.subscribed, transaction: bought, at: 0)
                let waited = ContinuousClock.now - start
                #expect(response.status == .serviceUnavailable, "\(String(buffer: response.body))")
                #expect(try h.object(response)["code"] as? String == "storage_unavailable")
                #expect(waited >= .seconds(4) && waited < .seconds(30), "answered after \(waited)")
                #expect(try await h.request(.get, "/v1/users/u1/entitlements", key: H.readKey).status == .ok)
                #expect(try await h.request(.get, "/ready").status == .ok)
            }
            #expect(try await h.eventCount() == 0)
            try await Self.eventuallyRecorded(h) { try await h.notify(.subscribed, transaction: bought, at: 0) }
            #expect(try await h.eventCount() == 1)
        }
    }

    /// Runs `body` against a live server whose PostgreSQL is reached through `relay`, which starts
    /// down. The harness counts events through `fixture.store`, which reaches PostgreSQL directly.
    private static func withServerBehindRelay(
        acquireTimeout: Duration, _ body: @escaping @Sendable (H, TCPRelay) async throws -> Void
    ) async throws {
        let pki = try H.pki.get()
        try await withFreshStore(.postgres) { fixture in
            guard let url = TestDatabases.postgresURL else { throw PostgreSQLRequired() }
            let direct = try PostgresSettings(url: url)
            try await TCPRelay.run(to: direct.host, port: direct.port, up: false) { relay in
                var settings = direct
                settings.host = "127.0.0.1"
                settings.port = relay.port
                settings.searchPath = fixture.location
                settings.acquireTimeout = acquireTimeout
                let clock = ManualClock(Day.date(0))
                let store = PostgresEventStore(settings: settings, logger: TestDatabases.logger, now: { clock.now() })
                try await withRunning(store) {
                    let app = try H.application(store: store, pki: pki, clock: clock, verifyReceiptURL: "http://127.0.0.1:1")
                    try await app.test(.live) { client in
                        try await body(H(client: client, pki: pki, store: fixture.store, clock: clock, fixture: fixture, verifyReceipt: FakeVerifyReceipt.Recorder()), relay)
                    }
                }
            }
        }
    }

    /// The request is answered 503 `storage_unavailable` well before a client would give up:
    /// the acquire timeout is 1 s here.
    private static func expectUnavailable(_ h: H, _ send: () async throws -> TestResponse) async throws {
        let start = ContinuousClock.now
        let response = try await send()
        let waited = ContinuousClock.now - start
        #expect(response.status == .serviceUnavailable)
        #expect(try h.object(response)["code"] as? String == "storage_unavailable")
        #expect(waited < .seconds(5), "answered after \(waited)")
    }

    /// Sends until the database answers again (the pool reconnects after a back-off), then expects
    /// the notification to be recorded, not a duplicate of a half-done earlier attempt.
    private static func eventuallyRecorded(_ h: H, _ send: () async throws -> TestResponse) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        var response = try await send()
        while response.status == .serviceUnavailable && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(200))
            response = try await send()
        }
        #expect(response.status == .ok)
        #expect(try h.object(response)["result"] as? String == "recorded")
    }
}
