import EventStore
import EventStoreTesting
import Foundation
import Testing

@Suite("Event store contract: checkpoints and read models")
struct CheckpointContractTests {
    @Test(arguments: TestDatabases.dialects)
    func checkpointsMoveByCompareAndSetWithTheProjectorsWrites(_ dialect: StorageDialect) async throws {
        try await withFreshStore(dialect) { (fixture: StoreFixture) async throws in
            let store = fixture.store
            #expect(try await store.checkpoint("projector") == nil)
            let first = EventCursor(transaction: 0, position: 5)
            try await store.commitProjection(checkpoint: "projector", expected: nil, next: first) { transaction in
                try await transaction.putDocument(model: "m", key: "k", data: Data(#"{"v":1}"#.utf8))
            }
            #expect(try await store.checkpoint("projector") == first)

            // A second projector instance that read the old checkpoint loses, and its writes vanish.
            let stale = EventCursor(transaction: 0, position: 3)
            await expectStoreError(.checkpointConflict, "moving a stale checkpoint") {
                try await store.commitProjection(checkpoint: "projector", expected: stale, next: EventCursor(transaction: 0, position: 9)) { transaction in
                    try await transaction.putDocument(model: "m", key: "k", data: Data(#"{"v":2}"#.utf8))
                }
            }
            await expectStoreError(.checkpointConflict, "creating a checkpoint twice") {
                try await store.commitProjection(checkpoint: "projector", expected: nil, next: first) { _ in }
            }
            let document = try #require(try await store.document(model: "m", key: "k"))
            #expect(try CanonicalJSON.canonicalize(document) == Data(#"{"v":1}"#.utf8))

            let second = EventCursor(transaction: 0, position: 12)
            try await store.commitProjection(checkpoint: "projector", expected: first, next: second) { transaction in
                try await transaction.deleteDocument(model: "m", key: "k")
            }
            #expect(try await store.checkpoint("projector") == second)
            #expect(try await store.document(model: "m", key: "k") == nil)
        }
    }

    @Test(arguments: TestDatabases.dialects)
    func migratingTwiceIsANoOp(_ dialect: StorageDialect) async throws {
        try await withFreshStore(dialect) { (fixture: StoreFixture) async throws in
            #expect(try await fixture.store.migrate().isEmpty)
        }
    }

    /// Several instances may start at once on a fresh PostgreSQL database: each migrates, one applies
    /// the files, and none fails creating the bookkeeping table beside another.
    @Test(.enabled(if: TestDatabases.dialects.contains(.postgres)))
    func instancesMigratingAFreshDatabaseAtOnceAllSucceed() async throws {
        guard let url = TestDatabases.postgresURL else { throw PostgreSQLRequired() }
        for _ in 0..<5 {
            try await withPostgresSchema(url: url) { settings, _, _ in
                let stores = (0..<4).map { _ in PostgresEventStore(settings: settings, logger: TestDatabases.logger) }
                // Each outcome is collected, not thrown: one failure must not cancel the others
                // midway through their migrations.
                let outcomes = await withTaskGroup(of: Result<Int, any Error>.self) { group in
                    for store in stores {
                        group.addTask {
                            do { return .success(try await withRunning(store) { try await store.migrate().count }) } catch { return .failure(error) }
                        }
                    }
                    return await group.reduce(into: [Result<Int, any Error>]()) { $0.append($1) }
                }
                let shipped = try MigrationCatalog.migrations(for: .postgres).count
                #expect(try outcomes.map { try $0.get() }.sorted() == [0, 0, 0, shipped])
            }
        }
    }

    /// What `migrate` throws, or nil when it succeeds.
    static func migrateRefusal(_ store: any EventStore) async -> (any Error)? {
        do {
            try await store.migrate()
            return nil
        } catch {
            return error
        }
    }

    @Test(arguments: TestDatabases.dialects)
    func anEditedAppliedMigrationStopsMigrate(_ dialect: StorageDialect) async throws {
        try await withFreshStore(dialect) { (fixture: StoreFixture) async throws in
            try await fixture.rawExecute("UPDATE schema_migrations SET checksum = 'edited' WHERE version = 1")
            let refusal = try #require(await Self.migrateRefusal(fixture.store), "migrate accepted a changed migration")
            #expect(refusal.storeCode == .migrationChecksumMismatch)
            #expect("\(refusal)".contains("0001_events.sql"))
        }
    }

    /// A database a newer build migrated (rolled back to this build): `migrate` stops, naming the
    /// migration and the way back (`--no-migrate`), while the pending check `serve --no-migrate`
    /// makes still passes, so this build can run on it (operator walkthrough: the message said only
    /// "run a newer subledger", the opposite of what a rollback needs).
    @Test(arguments: TestDatabases.dialects)
    func aMigrationFromANewerBuildStopsMigrateButNotTheNoMigrateCheck(_ dialect: StorageDialect) async throws {
        try await withFreshStore(dialect) { (fixture: StoreFixture) async throws in
            // SQLite keeps applied_at as microseconds; PostgreSQL fills it by default.
            let columns = dialect == .sqlite ? ("version, name, checksum, applied_at", ", 0") : ("version, name, checksum", "")
            try await fixture.rawExecute("INSERT INTO schema_migrations (\(columns.0)) VALUES (9999, '9999_from_a_newer_build.sql', 'x'\(columns.1))")
            let refusal = try #require(await Self.migrateRefusal(fixture.store), "migrate accepted a migration this build does not ship")
            #expect(refusal.storeCode == .unknownMigration)
            #expect("\(refusal)".contains("9999_from_a_newer_build.sql"), "\(refusal)")
            #expect("\(refusal)".contains("start serve with --no-migrate"), "\(refusal)")
            #expect(try await fixture.store.pendingMigrations().isEmpty)
        }
    }

    /// What `/ready` and the read-only commands ask: read without writing, on both adapters.
    @Test(arguments: TestDatabases.dialects)
    func pendingMigrationsNamesWhatTheDatabaseLacksWithoutChangingIt(_ dialect: StorageDialect) async throws {
        try await withFreshStore(dialect) { (fixture: StoreFixture) async throws in
            let shipped = try MigrationCatalog.migrations(for: dialect)
            #expect(try await fixture.store.pendingMigrations().isEmpty)
            let last = try #require(shipped.last)
            try await fixture.rawExecute("DELETE FROM schema_migrations WHERE version = \(last.version)")
            #expect(try await fixture.store.pendingMigrations().map(\.name) == [last.name])
            // Asking again changes nothing; a migration this build does not ship is not counted.
            #expect(try await fixture.store.pendingMigrations().map(\.name) == [last.name])
            let now = dialect == .postgres ? "now()" : "0"
            try await fixture.rawExecute("INSERT INTO schema_migrations (version, name, checksum, applied_at) VALUES (9999, '9999_future.sql', 'x', \(now))")
            #expect(try await fixture.store.pendingMigrations().map(\.name) == [last.name])
            // No table at all: a database without the schema lacks every migration.
            try await fixture.rawExecute("DROP TABLE schema_migrations")
            #expect(try await fixture.store.pendingMigrations().map(\.name) == shipped.map(\.name))
        }
    }
}
