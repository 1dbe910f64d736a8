import EventStore
import EventStoreTesting
import Foundation
import PostgresNIO
import Testing

/// A command starts the store's `run()` in a child task and its first statement at once: the
/// statement must wait for the pool to run rather than reach it first.
@Suite("PostgreSQL: statements before the store runs", .timeLimit(.minutes(2)))
struct PostgresPoolStartTests {
    /// Issued before `run()`, a statement waits for it and then succeeds. Before, it reached
    /// postgres-nio's pool first, which logged "PostgresClient.run() hasn't been called yet": offline
    /// commands printed that line whenever their first query won the race.
    @Test(.enabled(if: TestDatabases.dialects.contains(.postgres)))
    func aStatementIssuedBeforeRunWaitsForIt() async throws {
        guard let url = TestDatabases.postgresURL else { throw PostgreSQLRequired() }
        try await withPostgresSchema(url: url) { settings, _, _ in
            let log = CapturedLog()
            let store = PostgresEventStore(settings: settings, logger: log.logger)
            let pending = try await withThrowingTaskGroup(of: Int?.self) { group in
                group.addTask { try await store.pendingMigrations().count }
                // Long enough for the statement to be waiting for a connection.
                try await Task.sleep(for: .milliseconds(300))
                group.addTask {
                    try await store.run()
                    return nil
                }
                defer { group.cancelAll() }
                while let finished = try await group.next() {
                    if let finished { return finished }
                }
                return 0
            }
            // A new schema lacks every migration.
            #expect(pending > 0)
            #expect(!log.lines.contains { $0.contains("hasn't been called yet") }, "\(log.lines)")
        }
    }

    /// A store whose `run()` was cancelled before it began (a command stopped at once) answers
    /// storage_unavailable at once, from the stopped pool, rather than leaving its leases waiting
    /// for the opening until `acquire_timeout`.
    @Test(.enabled(if: TestDatabases.dialects.contains(.postgres)))
    func aStoreStoppedBeforeItRanAnswersUnavailableAtOnce() async throws {
        guard let url = TestDatabases.postgresURL else { throw PostgreSQLRequired() }
        try await withPostgresSchema(url: url) { settings, _, _ in
            let store = PostgresEventStore(settings: settings, logger: TestDatabases.logger)
            let runner = Task {
                withUnsafeCurrentTask { $0?.cancel() }
                try await store.run()
            }
            try await runner.value
            let error = await #expect(throws: EventStoreError.self) { _ = try await store.pendingMigrations() }
            #expect(error?.code == .storageUnavailable)
            #expect(error.map { "\($0)" }?.contains("acquire_timeout") == false, "\(String(describing: error))")
        }
    }

    /// A short-lived client (a test's schema, the benchmark's) runs its statements while its pool
    /// runs, and stops it after. Whether a statement could come before `run()` is a race here, so
    /// the missing warning alone would not show a lost gate; `PoolStartTests` pins the order.
    @Test(.enabled(if: TestDatabases.dialects.contains(.postgres)))
    func aShortLivedClientRunsItsStatementsWhileItsPoolRuns() async throws {
        guard let url = TestDatabases.postgresURL else { throw PostgreSQLRequired() }
        let settings = try PostgresSettings(url: url)
        let log = CapturedLog()
        let client = PostgresClient(
            configuration: .init(host: settings.host, port: settings.port, username: settings.username,
                                 password: settings.password, database: settings.database, tls: .disable),
            backgroundLogger: log.logger
        )
        let answer = try await client.whileRunning {
            var total = 0
            for try await value in try await client.query("SELECT 41 + 1", logger: log.logger).decode(Int.self) { total += value }
            return total
        }
        #expect(answer == 42)
        #expect(!log.lines.contains { $0.contains("hasn't been called yet") }, "\(log.lines)")
    }

    /// The wait for `run()` is part of the wait for a connection, so `acquire_timeout` bounds it: a
    /// store nobody runs answers storage_unavailable rather than hanging.
    @Test(.enabled(if: TestDatabases.dialects.contains(.postgres)))
    func aStoreNeverRunAnswersUnavailableAfterTheAcquireTimeout() async throws {
        guard let url = TestDatabases.postgresURL else { throw PostgreSQLRequired() }
        try await withPostgresSchema(url: url) { settings, _, _ in
            var settings = settings
            settings.acquireTimeout = .milliseconds(300)
            let store = PostgresEventStore(settings: settings, logger: TestDatabases.logger)
            let error = await #expect(throws: EventStoreError.self) { _ = try await store.pendingMigrations() }
            #expect(error?.code == .storageUnavailable)
            #expect(error.map { "\($0)" }?.contains("acquire_timeout") == true, "\(String(describing: error))")
        }
    }
}
