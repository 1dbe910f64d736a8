import EventStore
import Foundation
import Logging
import PostgresNIO
import SQLiteNIO

/// A fresh, migrated store for one test, with raw access for tampering tests.
public struct StoreFixture: Sendable {
    public let store: any EventStore
    public let dialect: StorageDialect
    /// PostgreSQL: the private schema; SQLite: the database file.
    public let location: String
    public let rawPostgres: PostgresClient?

    /// Runs SQL outside the store, as an operator with database access would.
    public func rawExecute(_ sql: String) async throws {
        switch dialect {
        case .postgres:
            let rawPostgres = try requiredRawPostgres
            try await rawPostgres.withConnection { connection in
                _ = try await connection.query(PostgresQuery(unsafeSQL: "SET search_path TO \(location)"), logger: TestDatabases.logger)
                for statement in sql.split(separator: ";").map({ $0.trimmingCharacters(in: .whitespacesAndNewlines) }) where !statement.isEmpty {
                    _ = try await connection.query(PostgresQuery(unsafeSQL: statement), logger: TestDatabases.logger)
                }
            }
        case .sqlite:
            try await withRawSQLite { connection in
                for statement in sql.split(separator: ";").map({ $0.trimmingCharacters(in: .whitespacesAndNewlines) }) where !statement.isEmpty {
                    _ = try await connection.query(statement)
                }
            }
        }
    }

    /// Makes the database itself refuse every insert of an event of `type` from now on (a trigger,
    /// as an operator could add), so a test can show that what was written with such an event in one
    /// transaction is rolled back with it.
    public func refuseInserts(ofType type: String) async throws {
        let quoted = "'" + type.replacingOccurrences(of: "'", with: "''") + "'"
        switch dialect {
        case .postgres:
            let rawPostgres = try requiredRawPostgres
            _ = try await rawPostgres.query(PostgresQuery(unsafeSQL: """
                CREATE OR REPLACE FUNCTION \(location).refuse_test_inserts() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN RAISE EXCEPTION 'this test refuses % events', NEW.type; END $$
                """), logger: TestDatabases.logger)
            _ = try await rawPostgres.query(PostgresQuery(unsafeSQL: """
                CREATE TRIGGER refuse_test_inserts BEFORE INSERT ON \(location).events FOR EACH ROW
                WHEN (NEW.type = \(quoted)) EXECUTE FUNCTION \(location).refuse_test_inserts()
                """), logger: TestDatabases.logger)
        case .sqlite:
            try await withRawSQLite { connection in
                _ = try await connection.query("""
                    CREATE TRIGGER refuse_test_inserts BEFORE INSERT ON events WHEN NEW.type = \(quoted)
                    BEGIN SELECT RAISE(ABORT, 'this test refuses these events'); END
                    """)
            }
        }
    }

    /// Whether the store's database holds a table named `name` (in the fixture's schema on PostgreSQL).
    public func tableExists(_ name: String) async throws -> Bool {
        switch dialect {
        case .postgres:
            let rawPostgres = try requiredRawPostgres
            let rows = try await rawPostgres.query(
                PostgresQuery(unsafeSQL: "SELECT to_regclass('\(location).\(name)') IS NOT NULL"), logger: TestDatabases.logger
            ).collect()
            return try rows.first?.decode(Bool.self) ?? false
        case .sqlite:
            return try await withRawSQLite { connection in
                let rows = try await connection.query("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name = ?", [.text(name)])
                return (rows.first?.column("n")?.integer ?? 0) > 0
            }
        }
    }

    /// Drops what `refuseInserts(ofType:)` added: the trigger, and on PostgreSQL its function.
    public func stopRefusingInserts() async throws {
        switch dialect {
        case .postgres:
            try await rawExecute("DROP TRIGGER refuse_test_inserts ON events")
            try await rawExecute("DROP FUNCTION refuse_test_inserts()")
        case .sqlite:
            try await rawExecute("DROP TRIGGER refuse_test_inserts")
        }
    }

    /// The raw PostgreSQL client, which a PostgreSQL fixture made by the tests always has.
    private var requiredRawPostgres: PostgresClient {
        get throws {
            guard let rawPostgres else { throw EventStoreError(.databaseError, "this PostgreSQL fixture has no raw client") }
            return rawPostgres
        }
    }

    /// Runs `body` on a connection of its own to the SQLite file, closed however `body` ends.
    private func withRawSQLite<T: Sendable>(_ body: (SQLiteConnection) async throws -> T) async throws -> T {
        let connection = try await SQLiteConnection.open(storage: .file(path: location))
        do {
            let result = try await body(connection)
            try await connection.close()
            return result
        } catch {
            try? await connection.close()
            throw error
        }
    }

    /// SQLite: runs `body` while another connection, as another process writing the file would,
    /// holds SQLite's one write lock (`BEGIN IMMEDIATE`), then lets it go.
    public func whileAnotherWriterHoldsTheFile<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        guard dialect == .sqlite else { throw EventStoreError(.databaseError, "only a SQLite file has one writer to hold") }
        return try await withRawSQLite { connection in
            _ = try await connection.query("BEGIN IMMEDIATE")
            let result = try await body()
            _ = try await connection.query("ROLLBACK")
            return result
        }
    }
}
