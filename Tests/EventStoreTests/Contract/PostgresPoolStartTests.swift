import EventStore
import EventStoreTesting
import Foundation
import Testing

/// A command starts the store's `run()` in a child task and its first statement at once: the
/// statement must wait for the pool to run rather than reach it first.
@Suite("PostgreSQL: statements before the store runs")
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
