import EventStore
import EventStoreTesting
import Foundation
import Testing

/// A store started before its schema (serve --no-migrate, the migrate job still to run) works as
/// soon as the schema is there, without a restart.
@Suite("PostgreSQL: the schema arriving while the store runs")
struct PostgresSchemaArrivalTests {
    /// postgres-nio keeps a statement whose preparation failed as failed on its connection. With one
    /// connection in the pool, a read and an append tried before the migration ran on that
    /// connection again after it, and failed with "relation does not exist" until it idled out.
    @Test(.enabled(if: TestDatabases.dialects.contains(.postgres)))
    func statementsTriedBeforeTheMigrationWorkAfterIt() async throws {
        guard let url = TestDatabases.postgresURL else { throw PostgreSQLRequired() }
        try await withPostgresSchema(url: url) { settings, _, _ in
            var single = settings
            single.poolSize = 1
            let store = PostgresEventStore(settings: single, logger: TestDatabases.logger)
            try await withRunning(store) {
                await #expect(throws: EventStoreError.self) { _ = try await store.document(model: "chain", key: "1000") }
                await #expect(throws: EventStoreError.self) { _ = try await store.append(to: "chain-1000", event(), expectedVersion: .any) }
                #expect(try await store.pendingMigrations().isEmpty == false)
                try await store.migrate()
                #expect(try await store.document(model: "chain", key: "1000") == nil)
                let appended = try await store.append(to: "chain-1000", event(), expectedVersion: .any)
                #expect(appended.streamVersion == 1)
                #expect(try await store.readStream("chain-1000").count == 1)
            }
        }
    }
}
