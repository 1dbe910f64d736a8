import EventStore
import EventStoreTesting
import Foundation
import Testing

@Suite("Event store contract: following the log")
struct EventFeedContractTests {
    @Test(arguments: TestDatabases.dialects)
    func aFollowerReceivesEventsAppendedAfterItCaughtUp(_ dialect: StorageDialect) async throws {
        try await withFreshStore(dialect) { (fixture: StoreFixture) async throws in
            _ = try await fixture.store.append(to: "s", [event("old")], expectedVersion: .any)
            // A poll interval far beyond the test's patience: only the wake-up signal can deliver in time.
            let feed = EventFeed(store: fixture.store, after: .start, pageSize: 2, pollInterval: .seconds(600))
            let received = try await withThrowingTaskGroup(of: [String].self) { group in
                group.addTask {
                    var types: [String] = []
                    for try await event in feed {
                        types.append(event.type)
                        if types.count == 4 { break }
                    }
                    return types
                }
                group.addTask {
                    try await Task.sleep(for: .milliseconds(200))
                    for name in ["new-1", "new-2", "new-3"] {
                        _ = try await fixture.store.append(to: "s", [event(name)], expectedVersion: .any)
                    }
                    return []
                }
                group.addTask {
                    try await Task.sleep(for: .seconds(60))
                    throw ProcessTimeout()
                }
                var result: [String] = []
                for try await types in group where !types.isEmpty {
                    result = types
                    break
                }
                group.cancelAll()
                return result
            }
            #expect(received == ["old", "new-1", "new-2", "new-3"])
        }
    }

    @Test(.enabled(if: TestDatabases.dialects.contains(.postgres)))
    func postgresNotifyWakesAFollowerInAnotherStoreInstance() async throws {
        guard let url = TestDatabases.postgresURL else {
            Issue.record("PostgreSQL is required under CI=true: set SUBLEDGER_TEST_POSTGRES_URL")
            return
        }
        try await withPostgresSchema(url: url) { settings, _, _ in
            let writer = PostgresEventStore(settings: settings, logger: TestDatabases.logger)
            let reader = PostgresEventStore(settings: settings, logger: TestDatabases.logger)
            try await withRunning(writer) {
                try await withRunning(reader) {
                    try await writer.migrate()
                    let feed = EventFeed(store: reader, after: .start, pollInterval: .seconds(600))
                    let start = ContinuousClock.now
                    let type = try await Self.firstEventType(of: feed, alongside: {
                        // Give the follower time to catch up and wait on its signal.
                        try await Task.sleep(for: .milliseconds(500))
                        _ = try await writer.append(to: "s", [event("from-another-process")], expectedVersion: .any)
                    })
                    #expect(type == "from-another-process")
                    #expect(ContinuousClock.now - start < .seconds(30))
                }
            }
        }
    }

    /// PostgreSQL's `readAll` holds an event back while an older write transaction is open, and that
    /// transaction's end raises no signal. The follower, woken by the append but unable to see it yet,
    /// must look again soon rather than wait its whole poll interval.
    @Test(.enabled(if: TestDatabases.dialects.contains(.postgres)))
    func aSignalledEventHeldBackByAnOlderTransactionArrivesSoonAfterItEnds() async throws {
        try await withFreshStore(.postgres) { (fixture: StoreFixture) async throws in
            let store = fixture.store
            let raw = try #require(fixture.rawPostgres)
            let feed = EventFeed(store: store, after: .start, pollInterval: .seconds(600))
            let opened = AsyncStream<Void>.makeStream()
            let release = AsyncStream<Void>.makeStream()
            let type = try await Self.firstEventType(of: feed, alongside: {
                // A write transaction that appends nothing, so its commit signals nobody.
                try await raw.withConnection { connection in
                    _ = try await connection.query("BEGIN", logger: TestDatabases.logger)
                    _ = try await connection.query("SELECT pg_current_xact_id()", logger: TestDatabases.logger)
                    opened.continuation.yield()
                    for await _ in release.stream { break }
                    _ = try await connection.query("COMMIT", logger: TestDatabases.logger)
                }
            }, {
                for await _ in opened.stream { break }
                _ = try await store.append(to: "s", [event("held-back")], expectedVersion: .any)
                let visible = try await store.readAll(after: .start, limit: 10)
                #expect(visible.events.isEmpty, "the open transaction holds the event back")
                // Time for the woken follower to read and find nothing.
                try await Task.sleep(for: .milliseconds(300))
                release.continuation.yield()
            })
            #expect(type == "held-back")
        }
    }

    /// The same, when the signal comes while the caller is still busy with the previous event: the
    /// follower's next read must count it as a signal too, though no wait saw it arrive.
    @Test(.enabled(if: TestDatabases.dialects.contains(.postgres)))
    func aSignalWhileTheCallerIsBusyStillLeadsToARecheck() async throws {
        try await withFreshStore(.postgres) { (fixture: StoreFixture) async throws in
            let store = fixture.store
            let raw = try #require(fixture.rawPostgres)
            _ = try await store.append(to: "s", [event("first")], expectedVersion: .any)
            var iterator = EventFeed(store: store, after: .start, pollInterval: .seconds(600)).makeAsyncIterator()
            #expect(try await iterator.next()?.type == "first")
            try await raw.withConnection { connection in
                _ = try await connection.query("BEGIN", logger: TestDatabases.logger)
                _ = try await connection.query("SELECT pg_current_xact_id()", logger: TestDatabases.logger)
                _ = try await store.append(to: "s", [event("held-back")], expectedVersion: .any)
                // The caller is busy: the append's signal, and the store's own NOTIFY coming back
                // to it, are raised before it asks for more.
                try await Task.sleep(for: .milliseconds(200))
                let resumed = iterator
                let type = try await Self.firstEventType({
                    var iterator = resumed
                    return try await iterator.next()?.type
                }, alongside: [{
                    try await Task.sleep(for: .milliseconds(300))
                    _ = try await connection.query("COMMIT", logger: TestDatabases.logger)
                }])
                #expect(type == "held-back")
            }
        }
    }

    /// The type of the first event `feed` yields while `work` runs beside it.
    private static func firstEventType(
        of feed: EventFeed, alongside work: @Sendable () async throws -> Void...
    ) async throws -> String {
        try await firstEventType({
            for try await event in feed { return event.type }
            return nil
        }, alongside: work)
    }

    /// The first type `next` returns while `work` runs beside it; `ProcessTimeout` after 60 s, so a
    /// follower that waits out its 600 s poll interval fails the test rather than holding it.
    private static func firstEventType(
        _ next: @escaping @Sendable () async throws -> String?, alongside work: [@Sendable () async throws -> Void]
    ) async throws -> String {
        try await withThrowingTaskGroup(of: String?.self) { group in
            group.addTask { try await next() }
            for task in work {
                group.addTask {
                    try await task()
                    return nil
                }
            }
            group.addTask {
                try await Task.sleep(for: .seconds(60))
                throw ProcessTimeout()
            }
            for try await type in group {
                if let type {
                    group.cancelAll()
                    return type
                }
            }
            return ""
        }
    }
}

struct ProcessTimeout: Error {}
