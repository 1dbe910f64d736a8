import Foundation
import EventStore

/// Refuses to read a database whose schema is behind this build, naming what to run, for the
/// commands that only read (they must not migrate: an auditor's role may have no write rights).
enum SchemaCheck {
    /// The database lacks migrations this build needs; the command exits 1 with this message.
    struct SchemaBehind: Error, CustomStringConvertible {
        var description: String
    }

    /// Throws `SchemaBehind` unless the database has every migration this build ships (`replay
    /// --check` compares read models this build writes).
    static func requireCurrent(_ store: any EventStore, database: DatabaseURL, before command: String) async throws {
        let pending = try await store.pendingMigrations()
        guard !pending.isEmpty else { return }
        throw behind(pending, database: database, before: command)
    }

    /// Throws `SchemaBehind` only when the database has no event tables at all (migration 0001): the
    /// audit reads nothing later migrations add, so an auditor's newer build reads an older schema.
    static func requireEvents(_ store: any EventStore, database: DatabaseURL, before command: String) async throws {
        let pending = try await store.pendingMigrations()
        guard let events = pending.first(where: { $0.version == 1 }) else { return }
        // Named alone: the later migrations are not what this command needs (and replay applies them).
        // A SQLite file copied from a live server without its -wal file holds no tables yet (they
        // are in the -wal until a checkpoint); migrating that copy makes an empty ledger that
        // passes the audit, so the copy is named first.
        throw SchemaBehind(description: """
            the database \(database.located) has no event tables (migration \(events.name)), which \(command) reads; \
            run subledger migrate before \(command) if it is new.\(copyHint(database))
            """)
    }

    /// For a SQLite file without event tables whose -wal file is missing or empty: it may be a live
    /// database copied without its -wal, which holds what has not been checkpointed (the tables
    /// too); migrating that copy makes an empty ledger that passes the audit. Opening the copy makes
    /// an empty -wal file, so an empty one counts as none. Empty for PostgreSQL.
    static func copyHint(_ database: DatabaseURL) -> String {
        guard let file = database.sqliteFile, !hasWAL(file) else { return "" }
        return """
             If this is a copy of a live database, it may lack its -wal file (\(file)-wal), which holds \
            what has not been checkpointed: copy both, or use sqlite3's .backup, before anything else.
            """
    }

    /// Whether SQLite file `file` has a -wal file with something in it.
    static func hasWAL(_ file: String) -> Bool {
        ((try? FileManager.default.attributesOfItem(atPath: file + "-wal")[.size] as? Int) ?? 0) > 0
    }

    private static func behind(_ pending: [Migration], database: DatabaseURL, before command: String) -> SchemaBehind {
        let hint = pending.contains { $0.version == 1 } ? copyHint(database) : ""
        return SchemaBehind(description: """
            the database \(database.located) lacks \(pending.count) migration(s) this build needs \
            (\(pending.map(\.name).joined(separator: ", "))); run subledger migrate before \(command)\(hint.isEmpty ? "" : ".")\(hint)
            """)
    }
}
