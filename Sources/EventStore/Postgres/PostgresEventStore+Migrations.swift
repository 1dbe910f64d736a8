import Foundation
import Logging
import PostgresNIO

extension PostgresEventStore {
    @discardableResult
    public func migrate() async throws -> [AppliedMigration] {
        let shipped = try MigrationCatalog.migrations(for: .postgres)
        return try await leased { connection in
            var appliedNow: [AppliedMigration] = []
            try await connection.withTransaction(logger: logger) { connection in
                _ = try await connection.query(PostgresQuery(unsafeSQL: PostgresSQL.migrationLock), logger: logger)
                // Under the lock: two instances creating the table at once on a fresh database can
                // collide in the catalog (a unique violation on pg_type), and one would fail to start.
                _ = try await connection.query(PostgresQuery(unsafeSQL: PostgresSQL.createMigrationsTable), logger: logger)
                var applied: [AppliedMigration] = []
                let rows = try await connection.query(PostgresQuery(unsafeSQL: PostgresSQL.appliedMigrations), logger: logger)
                for try await (version, name, checksum) in rows.decode((Int32, String, String).self) {
                    applied.append(AppliedMigration(version: Int(version), name: name, checksum: checksum))
                }
                for migration in try MigrationCatalog.pending(shipped: shipped, applied: applied) {
                    for statement in SQLScriptSplitter.statements(in: migration.sql) {
                        _ = try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                    }
                    var binds = PostgresBindings()
                    binds.append(Int32(migration.version))
                    binds.append(migration.name)
                    binds.append(migration.checksum)
                    _ = try await connection.query(PostgresQuery(unsafeSQL: PostgresSQL.recordMigration, binds: binds), logger: logger)
                    appliedNow.append(AppliedMigration(version: migration.version, name: migration.name, checksum: migration.checksum))
                    logger.info("applied migration", metadata: ["migration": "\(migration.name)"])
                }
            }
            return appliedNow
        }
    }

    public func pendingMigrations(waitingAtMost wait: Duration?) async throws -> [Migration] {
        let shipped = try MigrationCatalog.migrations(for: .postgres)
        let applied = try await leased(waitingAtMost: wait) { connection -> Set<Int> in
            var exists = false
            for try await (found) in try await connection.query(PostgresQuery(unsafeSQL: PostgresSQL.migrationsTableExists), logger: logger)
                .decode(Bool.self) {
                exists = found
            }
            guard exists else { return [] }
            var versions: Set<Int> = []
            for try await version in try await connection.query(PostgresQuery(unsafeSQL: PostgresSQL.appliedVersions), logger: logger)
                .decode(Int32.self) {
                versions.insert(Int(version))
            }
            return versions
        }
        return shipped.filter { !applied.contains($0.version) }
    }
}
