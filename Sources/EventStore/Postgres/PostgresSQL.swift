/// Every SQL statement the PostgreSQL adapter runs, in one place.
enum PostgresSQL {
    /// The columns of an event row, in the order `PostgresEventStore.decodeEvent` reads them.
    static let eventColumns = """
        position, tx_id::text AS tx_text, event_id, stream_id, stream_version, type, schema_version, \
        data, metadata, (extract(epoch FROM recorded_at) * 1000000)::int8, dedupe_key, hash
        """

    static let streamHead = "SELECT version, head_hash FROM streams WHERE stream_id = $1"

    static let duplicates = """
        SELECT dedupe_key, event_id, position, stream_id, stream_version
        FROM events WHERE dedupe_key = ANY($1::text[])
        """

    /// The part both appends share: move the head of stream $1 to version $2 and hash $3 only if it is
    /// still at version $4, then insert into `events` (rows only if the head moved).
    private static let headCompareAndSetThenInsert = """
        WITH head AS (
            INSERT INTO streams AS s (stream_id, version, head_hash) VALUES ($1, $2, $3)
            ON CONFLICT (stream_id) DO UPDATE SET version = EXCLUDED.version, head_hash = EXCLUDED.head_hash
            WHERE s.version = $4
            RETURNING 1
        )
        INSERT INTO events (event_id, stream_id, stream_version, type, schema_version, data, metadata,
                            recorded_at, dedupe_key, hash)

        """

    /// Moves the stream head by compare-and-set and inserts the events only if the head moved, in one
    /// statement: with autocommit an append is a single round trip after the head read.
    static let appendEvents = headCompareAndSetThenInsert + """
        SELECT e.event_id, $1, e.stream_version, e.type, e.schema_version, e.data, e.metadata,
               'epoch'::timestamptz + e.recorded_at * interval '1 microsecond', NULLIF(e.dedupe_key, ''), e.hash
        FROM unnest($5::uuid[], $6::int8[], $7::text[], $8::int4[], $9::text[], $10::text[], $11::int8[],
                    $12::text[], $13::bytea[])
             AS e(event_id, stream_version, type, schema_version, data, metadata, recorded_at, dedupe_key, hash)
        WHERE EXISTS (SELECT 1 FROM head)
        RETURNING position, stream_version
        """

    /// `appendEvents` for exactly one event, run as a prepared statement, with the duplicate check
    /// inside: an event whose dedupe key ($12) is stored comes back flagged (with its stream's
    /// version) and nothing moves, so a stored duplicate costs no extra round trip and no aborted
    /// transaction. No row: the compare-and-set on the head lost.
    static let appendOneEvent = """
        WITH existing AS (
            SELECT event_id, position, stream_id, stream_version FROM events WHERE dedupe_key = $12
        ), head AS (
            INSERT INTO streams AS s (stream_id, version, head_hash)
            SELECT $1, $2, $3 WHERE NOT EXISTS (SELECT 1 FROM existing)
            ON CONFLICT (stream_id) DO UPDATE SET version = EXCLUDED.version, head_hash = EXCLUDED.head_hash
            WHERE s.version = $4
            RETURNING 1
        ), inserted AS (
            INSERT INTO events (event_id, stream_id, stream_version, type, schema_version, data, metadata,
                                recorded_at, dedupe_key, hash)
            SELECT $5, $1, $6, $7, $8, $9, $10, 'epoch'::timestamptz + $11 * interval '1 microsecond', $12, $13
            WHERE EXISTS (SELECT 1 FROM head)
            RETURNING event_id, position, stream_id, stream_version
        )
        SELECT false, event_id, position, stream_id, stream_version, stream_version FROM inserted
        UNION ALL
        SELECT true, e.event_id, e.position, e.stream_id, e.stream_version,
               coalesce((SELECT version FROM streams WHERE stream_id = $1), 0)
        FROM existing e
        """

    /// Locks the heads of the streams $1 (in the given, sorted, order), finds the events with dedupe
    /// keys $2, then locks and reads the documents of models $3 with keys $4 (in the given order):
    /// the first half of a multi-stream append, and the documents the caller will fold it into.
    /// `kind` 0 is a head, 1 a stored duplicate, 2 a document (its 1-based index as `version`, its
    /// data as `document`).
    ///
    /// One statement, so one round trip, takes the locks an ingest batch needs. The document models
    /// reach the function through a subquery over `locked` and `created`, so the heads and the names
    /// of new streams are locked before any document, as the write paths take them (a transfer whose
    /// previous owner the statement did not lock runs again with it here; one that ran out of such
    /// restarts locks it by a second such statement, and PostgreSQL breaks the rare cycle that makes).
    ///
    /// A stream of $1 with no row yet is locked by an advisory lock on its name (seed 1, apart from
    /// the documents' seed 0), taken after the heads in the same order: a stream two writers create
    /// at once has nothing else to lock before the insert, and the second writer, stamped already,
    /// waited there for the first to commit or roll back (a first writer caught in a deadlock held it
    /// for `deadlock_timeout`), then committed that long after its `recorded_at`. Now it waits here,
    /// before its stamp; if the first writer commits, this statement's snapshot still misses the
    /// stream, the insert fails on the key, and the transaction runs again.
    ///
    /// The duplicate lookup reads the statement's snapshot: a fact committed by the transaction this
    /// one waited on for a head lock is missed, its insert then fails on the unique key, and the
    /// transaction runs again and finds it (only the same fact arriving twice at once costs that).
    ///
    /// One index lookup per key, whatever the table statistics say. A prepared statement keeps the
    /// generic plan it made while the tables were small: `= ANY(array)` became a scan of the whole
    /// table, and so did a LATERAL lookup the planner flattened into a hash join. `FOR UPDATE` and
    /// `OFFSET 0` keep each lookup a parameterized scan of its index.
    static let lockHeadsAndDocuments = """
        WITH locked AS MATERIALIZED (
            SELECT s.stream_id, s.version, s.head_hash
            FROM unnest($1::text[]) AS k(stream_id),
                 LATERAL (SELECT stream_id, version, head_hash FROM streams
                          WHERE streams.stream_id = k.stream_id FOR UPDATE) AS s
        ), created AS MATERIALIZED (
            SELECT pg_advisory_xact_lock(hashtextextended(k.stream_id, 1))
            FROM unnest($1::text[]) AS k(stream_id)
            WHERE k.stream_id NOT IN (SELECT stream_id FROM locked)
        )
        SELECT 0, stream_id, version, head_hash, NULL::text, NULL::uuid, NULL::int8, NULL::text FROM locked
        UNION ALL
        SELECT 1, e.stream_id, e.stream_version, NULL::bytea, e.dedupe_key, e.event_id, e.position, NULL::text
        FROM unnest($2::text[]) AS k(dedupe_key),
             LATERAL (SELECT stream_id, stream_version, dedupe_key, event_id, position FROM events
                      WHERE events.dedupe_key = k.dedupe_key OFFSET 0) AS e
        UNION ALL
        SELECT 2, '', d.document_index, NULL::bytea, NULL::text, NULL::uuid, NULL::int8, d.document_data
        FROM lock_and_read_documents((SELECT CASE WHEN count(*) >= 0 THEN $3::text[] END FROM (SELECT 1 FROM locked UNION ALL SELECT 1 FROM created) AS l), $4::text[]) AS d
        """

    /// The second half: moves the locked heads ($1-$3), creates the new streams ($4-$6) and inserts
    /// the events of every stream ($7-$16), in one statement. A stream created meanwhile by another
    /// transaction fails the insert into `streams` (a race the caller retries).
    ///
    /// The heads move by `ON CONFLICT DO UPDATE`, which finds each row through the primary key. An
    /// `UPDATE ... FROM unnest(...)` is a join, and the generic plan made while `streams` was small
    /// hashed it against a scan of the whole table. The first half holds these heads locked, so each
    /// row conflicts and is updated.
    static let appendToStreams = """
        WITH moved AS (
            INSERT INTO streams AS s (stream_id, version, head_hash)
            SELECT * FROM unnest($1::text[], $2::int8[], $3::bytea[])
            ON CONFLICT (stream_id) DO UPDATE SET version = EXCLUDED.version, head_hash = EXCLUDED.head_hash
            RETURNING 1
        ), created AS (
            INSERT INTO streams (stream_id, version, head_hash)
            SELECT * FROM unnest($4::text[], $5::int8[], $6::bytea[])
            RETURNING 1
        )
        INSERT INTO events (event_id, stream_id, stream_version, type, schema_version, data, metadata,
                            recorded_at, dedupe_key, hash)
        SELECT e.event_id, e.stream_id, e.stream_version, e.type, e.schema_version, e.data, e.metadata,
               'epoch'::timestamptz + e.recorded_at * interval '1 microsecond', NULLIF(e.dedupe_key, ''), e.hash
        FROM unnest($7::uuid[], $8::text[], $9::int8[], $10::text[], $11::int4[], $12::text[], $13::text[],
                    $14::int8[], $15::text[], $16::bytea[]) WITH ORDINALITY
             AS e(event_id, stream_id, stream_version, type, schema_version, data, metadata, recorded_at, dedupe_key, hash, n)
        ORDER BY e.n
        RETURNING event_id, position
        """

    static let readStream = """
        SELECT \(eventColumns) FROM events
        WHERE stream_id = $1 AND stream_version >= $2
        ORDER BY stream_version LIMIT $3
        """

    /// Only events of transactions older than every running one are visible, so an event that commits
    /// late is never skipped: its transaction id keeps the gate shut until it commits or aborts.
    static let readAll = """
        SELECT \(eventColumns) FROM events
        WHERE (tx_id, position) > ($1::text::xid8, $2)
          AND tx_id < pg_snapshot_xmin(pg_current_snapshot())
        ORDER BY events.tx_id, events.position LIMIT $3
        """

    /// `readAll` over the streams $1 only, behind the same gate.
    static let readStreams = """
        SELECT \(eventColumns) FROM events
        WHERE stream_id = ANY($1::text[])
          AND (tx_id, position) > ($2::text::xid8, $3)
          AND tx_id < pg_snapshot_xmin(pg_current_snapshot())
        ORDER BY events.tx_id, events.position LIMIT $4
        """

    /// The moment a fold reads: the transactions it sees as committed.
    static let foldingSnapshot = "SELECT pg_current_snapshot()::text"

    /// The events committed in the snapshot $2, after position $1, in position order (a primary-key
    /// range scan), with only what a fold reads; `recorded_at` comes in binary, not through numeric.
    static let readAllForFolding = """
        SELECT position, tx_id::text::int8, event_id, stream_id, type, schema_version, data, recorded_at FROM events
        WHERE position > $1 AND pg_visible_in_snapshot(tx_id, $2::text::pg_snapshot)
        ORDER BY position LIMIT $3
        """

    static let streamVersion = "SELECT version FROM streams WHERE stream_id = $1"

    static let checkpoint = "SELECT cursor FROM checkpoints WHERE name = $1"

    static let insertCheckpoint = """
        INSERT INTO checkpoints (name, cursor) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING RETURNING name
        """

    static let moveCheckpoint = """
        UPDATE checkpoints SET cursor = $2, updated_at = now() WHERE name = $1 AND cursor = $3 RETURNING name
        """

    static let document = "SELECT data FROM projections WHERE model = $1 AND key = $2"

    static let putDocuments = """
        INSERT INTO projections (model, key, data)
        SELECT * FROM unnest($1::text[], $2::text[], $3::text[])
        ON CONFLICT (model, key) DO UPDATE SET data = EXCLUDED.data
        """

    static let putDocument = """
        INSERT INTO projections (model, key, data) VALUES ($1, $2, $3)
        ON CONFLICT (model, key) DO UPDATE SET data = EXCLUDED.data
        """

    static let deleteDocument = "DELETE FROM projections WHERE model = $1 AND key = $2"

    /// The documents of model $1 with keys $2, one row each, with the documents of model $4 named by
    /// the keys of its object at path $3: their keys and data in two arrays, aligned as both aggregate
    /// the same rows, and null when none of them exists. One statement, so one snapshot. A subquery
    /// per name keeps each a primary-key lookup whatever plan the prepared statement gets (`OFFSET 0`
    /// keeps it from being copied into the filter, which would look each name up twice), and each
    /// naming document is looked up once. One row a user, not one a document: postgres-nio hands rows
    /// over one by one, each a few executor switches on the connections' loop thread, the serial part
    /// of a batch of reads.
    static let documentsWithRelated = """
        SELECT u.key, u.data, named.keys, named.data
        FROM projections u
        CROSS JOIN LATERAL (
            SELECT array_agg(found.key) AS keys, array_agg(found.data) AS data
            FROM (
                SELECT n.key, (SELECT p.data FROM projections p WHERE p.model = $4 AND p.key = n.key) AS data
                FROM jsonb_object_keys(u.data::jsonb #> $3::text[]) AS n(key)
                OFFSET 0
            ) found
            WHERE found.data IS NOT NULL
        ) named
        WHERE u.model = $1 AND u.key = ANY($2)
        """

    /// The lock below, then the document, in one statement (see migration 0004).
    static let lockAndReadDocument = "SELECT lock_and_read_document($1, $2)"

    /// A transaction-scoped advisory lock named by a document's model and key.
    static let lockDocument = "SELECT pg_advisory_xact_lock(hashtextextended($1, 0))"

    /// Walks events stream by stream with each stream's head, for the hash-chain audit.
    static let chainPage = """
        SELECT \(eventColumns), s.version, s.head_hash
        FROM events LEFT JOIN streams s USING (stream_id)
        WHERE (stream_id, stream_version) > ($1, $2)
        ORDER BY stream_id, stream_version LIMIT $3
        """

    static let eventCount = "SELECT count(*)::int8 FROM events"

    /// The server's clock as the statement runs (not the transaction's start), in microseconds since 1970.
    static let serverClock = "SELECT (extract(epoch FROM clock_timestamp()) * 1000000)::int8"

    /// Every id this server assigned is below its snapshot's xmax; a stored event at or above it
    /// came from another cluster's history (an index range scan on events_tx_position).
    static let eventsAheadOfServer = "SELECT count(*)::int8 FROM events WHERE tx_id >= pg_snapshot_xmax(pg_current_snapshot())"

    /// Heads with no event behind them: the audit's walk goes by events, so it cannot see these.
    static let headsWithoutEvents = """
        SELECT stream_id, version FROM streams s
        WHERE version > 0 AND NOT EXISTS (SELECT 1 FROM events e WHERE e.stream_id = s.stream_id)
        ORDER BY stream_id
        """

    /// In byte order, as SQLite's: the database's own collation may be a language's. The primary
    /// key's index is in that collation, so this sorts the table; its one caller reads it all anyway.
    static let allDocuments = #"SELECT model, key, data FROM projections ORDER BY model COLLATE "C", key COLLATE "C""#

    static let dropRebuild = "DROP TABLE IF EXISTS projections_rebuild"
    static let createRebuild = "CREATE TABLE projections_rebuild (LIKE projections INCLUDING ALL)"
    static let fillRebuild = """
        INSERT INTO projections_rebuild (model, key, data)
        SELECT d.model, d.key, d.data FROM unnest($1::text[], $2::text[], $3::text[]) AS d(model, key, data)
        """
    /// How long the rest of the transaction waits for a lock before failing with 55P03
    /// (`lock_not_available`), in whole milliseconds and at least 1, since 0 would wait for ever.
    static func lockTimeout(_ wait: Duration) -> String {
        let (seconds, attoseconds) = wait.components
        return "SET LOCAL lock_timeout = '\(max(1, seconds * 1000 + attoseconds / 1_000_000_000_000_000))ms'"
    }

    /// What the swap's transaction holds before it counts the events: the read models. Every
    /// transaction that appends updates them in the same transaction, so once this lock is granted,
    /// each one that touched the old read models has committed (and is counted), and any other
    /// waits and then applies its events to the swapped-in ones, which lack them as the old ones
    /// did. The events themselves are not locked: a writer that appends before it reads its
    /// documents (a grant) would hold them while waiting here, and the two would deadlock.
    static let lockForSwap = [
        "LOCK TABLE projections IN ACCESS EXCLUSIVE MODE",
    ]
    /// The swap, in the transaction of `lockForSwap`; the index is renamed back so the next rebuild
    /// can reuse the name.
    static let swapRebuild = [
        "ALTER TABLE projections RENAME TO projections_replaced",
        "ALTER TABLE projections_rebuild RENAME TO projections",
        "DROP TABLE projections_replaced",
        "ALTER INDEX projections_rebuild_pkey RENAME TO projections_pkey",
    ]

    static let createMigrationsTable = """
        CREATE TABLE IF NOT EXISTS schema_migrations (
            version     integer PRIMARY KEY,
            name        text NOT NULL,
            checksum    text NOT NULL,
            applied_at  timestamptz NOT NULL DEFAULT now()
        )
        """

    /// Serialises concurrent `migrate` runs from several instances.
    static let migrationLock = "SELECT pg_advisory_xact_lock(4242424242)"

    static let appliedMigrations = "SELECT version, name, checksum FROM schema_migrations ORDER BY version"

    static let migrationsTableExists = "SELECT to_regclass('schema_migrations') IS NOT NULL"

    static let appliedVersions = "SELECT version FROM schema_migrations"

    static let recordMigration = "INSERT INTO schema_migrations (version, name, checksum) VALUES ($1, $2, $3)"

    static let insertRejection = """
        INSERT INTO rejections (source, code, detail, body, request_id, received_at)
        VALUES ($1, $2, $3, $4, $5, 'epoch'::timestamptz + $6 * interval '1 microsecond') RETURNING id
        """
    static let trimRejections = "DELETE FROM rejections WHERE id <= $1"
    static let recentRejections = """
        SELECT (extract(epoch FROM received_at) * 1000000)::int8, source, code, detail, body, request_id
        FROM rejections ORDER BY id DESC LIMIT $1
        """

    static let listenChannel = "subledger_events"

    /// The wake-up hint other processes LISTEN for; the payload is the sender's search path.
    static let announce = "SELECT pg_notify('subledger_events', $1)"
}
