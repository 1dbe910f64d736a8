import EventStore

/// Refuses to read a database whose schema is behind this build, naming what to run, for the
/// commands that only read (they must not migrate: an auditor's role may have no write rights).
enum SchemaCheck {
    /// The database lacks migrations this build needs; the command exits 1 with this message.
    struct SchemaBehind: Error, CustomStringConvertible {
        var description: String
    }

    static func requireCurrent(_ store: any EventStore, before command: String) async throws {
        let pending = try await store.pendingMigrations()
        guard !pending.isEmpty else { return }
        throw SchemaBehind(description: """
            the \(store.dialect.rawValue) database lacks \(pending.count) migration(s) this build needs \
            (\(pending.map(\.name).joined(separator: ", "))); run subledger migrate before \(command)
            """)
    }
}
