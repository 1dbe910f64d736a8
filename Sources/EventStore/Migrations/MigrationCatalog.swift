import Foundation

/// The migrations shipped with this build, read from the bundled `Migrations/<dialect>/` folder.
///
/// The files live in the target's resources (`Sources/EventStore/Resources/Migrations`, which the
/// repository's top-level `Migrations/` links to), so the files operators read are the ones applied.
public enum MigrationCatalog {
    /// The migrations for a dialect, ordered by number (numbers may differ between dialects).
    public static func migrations(for dialect: StorageDialect) throws -> [Migration] {
        switch dialect {
        case .postgres: try shippedPostgres.get()
        case .sqlite: try shippedSQLite.get()
        }
    }

    // Read and hashed once per process: `/ready` asks on every probe, and the files never change.
    private static let shippedPostgres = Result { try shipped(.postgres) }
    private static let shippedSQLite = Result { try shipped(.sqlite) }

    private static func shipped(_ dialect: StorageDialect) throws -> [Migration] {
        guard let root = Bundle.module.url(forResource: "Migrations", withExtension: nil) else {
            throw EventStoreError(.databaseError, "the Migrations folder is missing from the EventStore resources")
        }
        return try migrations(in: root.appendingPathComponent(dialect.rawValue))
    }

    /// The migrations in a folder, ordered by number; rejects two files with the same number.
    public static func migrations(in folder: URL) throws -> [Migration] {
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            .filter { $0.hasSuffix(".sql") }
        var migrations: [Migration] = []
        for name in names {
            let sql = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
            migrations.append(try Migration(name: name, sql: sql))
        }
        migrations.sort { $0.version < $1.version }
        for (previous, next) in zip(migrations, migrations.dropFirst()) where previous.version == next.version {
            throw EventStoreError(.databaseError, "migrations \(previous.name) and \(next.name) share number \(next.version)")
        }
        return migrations
    }

    /// Checks applied migrations against the shipped ones and returns those still to apply.
    public static func pending(
        shipped: [Migration],
        applied: [AppliedMigration]
    ) throws(EventStoreError) -> [Migration] {
        let shippedByVersion = Dictionary(shipped.map { ($0.version, $0) }, uniquingKeysWith: { first, _ in first })
        for record in applied {
            guard let migration = shippedByVersion[record.version] else {
                throw EventStoreError(
                    .unknownMigration,
                    "the database has migration \(record.name) that this build does not ship: a newer subledger migrated it. Run that build (or a newer one); to go back to this one, start serve with --no-migrate (or database.migrate_on_start: false), which works while the newer migrations only add what this build does not read (operations.md, Upgrading and rolling back)"
                )
            }
            guard migration.checksum == record.checksum else {
                throw EventStoreError(
                    .migrationChecksumMismatch,
                    "migration \(migration.name) changed after it was applied (checksum \(record.checksum) in the database, \(migration.checksum) in this build); add a new migration instead of editing an applied one"
                )
            }
        }
        let appliedVersions = Set(applied.map(\.version))
        return shipped.filter { !appliedVersions.contains($0.version) }
    }
}
