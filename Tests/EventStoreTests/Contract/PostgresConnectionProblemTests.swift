import EventStore
import EventStoreTesting
import Foundation
import PostgresNIO
import Testing

/// A command that gets no connection says why: what the server answered, or why it was not reached,
/// rather than only that none came within `acquire_timeout`.
@Suite("PostgreSQL: why a connection cannot be opened")
struct PostgresConnectionProblemTests {
    @Test(.enabled(if: TestDatabases.dialects.contains(.postgres)))
    func aDirectAttemptNamesTheServersAnswerOrTheNetworksError() async throws {
        guard let url = TestDatabases.postgresURL else { throw PostgreSQLRequired() }
        let settings = try PostgresSettings(url: url)
        #expect(await PostgresEventStore.probe(settings) == nil)

        var unknownDatabase = settings
        unknownDatabase.database = "subledger_no_such_database"
        let answered = try #require(await PostgresEventStore.probe(unknownDatabase))
        #expect(answered.message == #"PostgreSQL answered: database "subledger_no_such_database" does not exist (3D000)"#)

        // A search_path naming no schema that exists: PostgreSQL takes it, then every statement
        // fails with 3F000 naming neither the setting nor the schema.
        var noSchema = settings
        noSchema.searchPath = "subledger_no_such_schema"
        let schema = try #require(await PostgresEventStore.probe(noSchema))
        #expect(schema.message == "search_path subledger_no_such_schema names no schema that exists in database \(settings.database ?? settings.username) or that \(settings.username) may use; create it first (CREATE SCHEMA; migrate creates only the tables) or grant USAGE on it")
        #expect(schema.isPermanent)

        var closedPort = settings
        closedPort.host = "127.0.0.1"
        closedPort.port = 1
        let unreachable = try #require(await PostgresEventStore.probe(closedPort))
        #expect(unreachable.message.contains("Connection refused"), "\(unreachable)")
    }

    /// The pool's connections and the change relay's carry their `application_name`, so an operator
    /// reading `pg_stat_activity` (a blocked replay names it) sees which are the ledger's.
    @Test(.enabled(if: TestDatabases.dialects.contains(.postgres)))
    func theConnectionsNameThemselvesInPgStatActivity() async throws {
        guard let url = TestDatabases.postgresURL else { throw PostgreSQLRequired() }
        try await withPostgresSchema(url: url) { settings, _, raw in
            let name = "subledger-test-\(UInt32.random(in: 0...UInt32.max))"
            var named = settings
            named.applicationName = name
            let store = PostgresEventStore(settings: named, logger: TestDatabases.logger)
            try await withRunning(store) {
                try await store.migrate()
                _ = try await store.eventCount()
                // The change relay's LISTEN connection opens on its own; the pool's has run a query.
                var listening = 0
                for _ in 0..<100 where listening < 1 {
                    let rows = try await raw.query(
                        "SELECT count(*)::int FROM pg_stat_activity WHERE application_name = \(name) AND query LIKE 'LISTEN%'", logger: TestDatabases.logger
                    )
                    for try await count in rows.decode(Int.self) { listening = count }
                    if listening < 1 { try await Task.sleep(for: .milliseconds(100)) }
                }
                #expect(listening == 1)
                var all = 0
                for try await count in try await raw.query(
                    "SELECT count(*)::int FROM pg_stat_activity WHERE application_name = \(name)", logger: TestDatabases.logger
                ).decode(Int.self) { all = count }
                #expect(all >= 2)
            }
        }
    }
}
