/// Every SQL statement the SQLite adapter runs, in one place.
enum SQLiteSQL {
    static let eventColumns = """
        position, event_id, stream_id, stream_version, type, schema_version, data, metadata, \
        recorded_at, dedupe_key, hash
        """

    static let writerPragmas = [
        "PRAGMA journal_mode = WAL",
        // A ledger favours durability: every commit reaches the disk before it is acknowledged.
        "PRAGMA synchronous = FULL",
        "PRAGMA busy_timeout = 5000",
        "PRAGMA foreign_keys = ON",
    ]

    static let readerPragmas = [
        "PRAGMA busy_timeout = 5000",
        "PRAGMA query_only = 1",
    ]

    static let begin = "BEGIN IMMEDIATE"
    static let commit = "COMMIT"
    static let rollback = "ROLLBACK"

    static let streamHead = "SELECT version, head_hash FROM streams WHERE stream_id = ?1"

    static func duplicates(count: Int) -> String {
        let placeholders = (1...count).map { "?\($0)" }.joined(separator: ", ")
        return """
            SELECT dedupe_key, event_id, position, stream_id, stream_version
            FROM events WHERE dedupe_key IN (\(placeholders))
            """
    }

    static let insertEvent = """
        INSERT INTO events (event_id, stream_id, stream_version, type, schema_version, data, metadata,
                            recorded_at, dedupe_key, hash)
        VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)
        RETURNING position
        """

    static let moveHead = """
        INSERT INTO streams (stream_id, version, head_hash) VALUES (?1, ?2, ?3)
        ON CONFLICT (stream_id) DO UPDATE SET version = excluded.version, head_hash = excluded.head_hash
        """

    static let readStream = """
        SELECT \(eventColumns) FROM events
        WHERE stream_id = ?1 AND stream_version >= ?2
        ORDER BY stream_version LIMIT ?3
        """

    static let readAll = """
        SELECT \(eventColumns) FROM events WHERE position > ?1 ORDER BY position LIMIT ?2
        """

    /// `readAll` over the streams named by the JSON array ?1 only.
    static let readStreams = """
        SELECT \(eventColumns) FROM events
        WHERE stream_id IN (SELECT value FROM json_each(?1)) AND position > ?2
        ORDER BY position LIMIT ?3
        """

    static let streamVersion = "SELECT version FROM streams WHERE stream_id = ?1"

    static let checkpoint = "SELECT cursor FROM checkpoints WHERE name = ?1"

    static let insertCheckpoint = """
        INSERT INTO checkpoints (name, cursor, updated_at) VALUES (?1, ?2, ?3)
        ON CONFLICT (name) DO NOTHING RETURNING name
        """

    static let moveCheckpoint = """
        UPDATE checkpoints SET cursor = ?2, updated_at = ?4 WHERE name = ?1 AND cursor = ?3 RETURNING name
        """

    static let document = "SELECT data FROM projections WHERE model = ?1 AND key = ?2"

    /// A document (`related` 0) and the documents of model ?3 named by the keys of its JSON object at
    /// path ?4 (`related` 1): one statement, so one snapshot of the database.
    static let documentWithRelated = """
        WITH main AS (SELECT data FROM projections WHERE model = ?1 AND key = ?2)
        SELECT 0 AS related, ?2 AS key, main.data AS data FROM main
        UNION ALL
        SELECT 1, p.key, p.data FROM main, json_each(main.data, ?4) AS j
        JOIN projections p ON p.model = ?3 AND p.key = j.key
        """

    static let putDocument = """
        INSERT INTO projections (model, key, data) VALUES (?1, ?2, ?3)
        ON CONFLICT (model, key) DO UPDATE SET data = excluded.data
        """

    static let deleteDocument = "DELETE FROM projections WHERE model = ?1 AND key = ?2"

    static let chainPage = """
        SELECT \(eventColumns), s.version AS head_version, s.head_hash AS head_hash
        FROM events LEFT JOIN streams s USING (stream_id)
        WHERE (stream_id, stream_version) > (?1, ?2)
        ORDER BY stream_id, stream_version LIMIT ?3
        """

    static let eventCount = "SELECT count(*) AS count FROM events"

    static let highestPosition = "SELECT coalesce(max(position), 0) AS position FROM events"

    /// Heads with no event behind them: the audit's walk goes by events, so it cannot see these.
    static let headsWithoutEvents = """
        SELECT stream_id, version FROM streams s
        WHERE version > 0 AND NOT EXISTS (SELECT 1 FROM events e WHERE e.stream_id = s.stream_id)
        ORDER BY stream_id
        """

    static let allDocuments = "SELECT model, key, data FROM projections ORDER BY model, key"

    static let dropRebuild = "DROP TABLE IF EXISTS projections_rebuild"
    static let createRebuild = """
        CREATE TABLE projections_rebuild (
            model  TEXT NOT NULL,
            key    TEXT NOT NULL,
            data   TEXT NOT NULL,
            PRIMARY KEY (model, key)
        ) STRICT
        """
    static func fillRebuild(rows: Int) -> String {
        "INSERT INTO projections_rebuild (model, key, data) VALUES " + (0..<rows).map { "(?\($0 * 3 + 1), ?\($0 * 3 + 2), ?\($0 * 3 + 3))" }.joined(separator: ", ")
    }
    static let swapRebuild = [
        "ALTER TABLE projections RENAME TO projections_replaced",
        "ALTER TABLE projections_rebuild RENAME TO projections",
        "DROP TABLE projections_replaced",
    ]

    static let insertRejection = """
        INSERT INTO rejections (received_at, source, code, detail, body, request_id) VALUES (?1, ?2, ?3, ?4, ?5, ?6) RETURNING id
        """
    static let trimRejections = "DELETE FROM rejections WHERE id <= ?1"
    static let recentRejections = "SELECT received_at, source, code, detail, body, request_id FROM rejections ORDER BY id DESC LIMIT ?1"

    static let createMigrationsTable = """
        CREATE TABLE IF NOT EXISTS schema_migrations (
            version     INTEGER PRIMARY KEY,
            name        TEXT NOT NULL,
            checksum    TEXT NOT NULL,
            applied_at  INTEGER NOT NULL
        ) STRICT
        """

    static let appliedMigrations = "SELECT version, name, checksum FROM schema_migrations ORDER BY version"

    static let migrationsTableExists = "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'"

    static let recordMigration = """
        INSERT INTO schema_migrations (version, name, checksum, applied_at) VALUES (?1, ?2, ?3, ?4)
        """
}
