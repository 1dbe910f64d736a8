import Foundation
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import PostgresNIO
import Synchronization

/// The production adapter: events in PostgreSQL through a postgres-nio connection pool.
///
/// `run()` must be running (in a `ServiceGroup` or a task group) for queries to be served; it also
/// holds one connection that LISTENs for appends by any process and raises `changes`.
public final class PostgresEventStore: EventStore {
    public let dialect = StorageDialect.postgres
    public let changes = ChangeSignal()
    /// Raised by this process's appends; `announceAppends` turns bursts of them into one NOTIFY.
    private let localAppends = ChangeSignal()
    /// Stream heads this process wrote or read last, so most appends are one round trip.
    private let heads = StreamHeadCache()

    let client: PostgresClient
    /// The pool with a deadline on waiting for a connection; every statement goes through it.
    let connections: ConnectionLeaser
    public let batchExecutor: (any TaskExecutor)?
    let logger: Logger
    private let now: @Sendable () -> Date
    /// LISTENs for other processes' appends and NOTIFYs them of ours, on a connection outside the pool.
    private let relay: PostgresChangeRelay
    /// Entitlement reads arriving together share one statement (see `ReadBatcher`).
    private let relatedReads: ReadBatcher<RelatedDocumentRead, DocumentWithRelated>
    /// The pool's size (`pool_size`), which a rebuild's fill workers must not exceed.
    private let poolSize: Int

    /// Creates a store for the given settings; nothing connects until `run()` starts.
    ///
    /// - Parameters:
    ///   - now: The clock that stamps `recorded_at`; tests pass a fixed one.
    ///   - listenRetryInterval: How long to wait before re-establishing a lost LISTEN connection.
    public init(
        settings: PostgresSettings,
        logger: Logger = Logger(label: "subledger.eventstore.postgres"),
        now: @escaping @Sendable () -> Date = { Date() },
        listenRetryInterval: Duration = .seconds(1)
    ) {
        var configuration = PostgresClient.Configuration(
            host: settings.host,
            port: settings.port,
            username: settings.username,
            password: settings.password,
            database: settings.database,
            tls: settings.poolTLS
        )
        configuration.options.maximumConnections = settings.poolSize
        configuration.options.minimumConnections = 0
        configuration.options.additionalStartupParameters = Self.startupParameters(settings)
        let executor = Self.connectionExecutor
        let client = PostgresClient(configuration: configuration, eventLoopGroup: executor.eventLoop, backgroundLogger: logger)
        self.client = client
        let connections = ConnectionLeaser(
            client: client, acquireTimeout: settings.acquireTimeout, logger: logger, poolStart: PoolStart()
        )
        self.connections = connections
        self.batchExecutor = executor
        self.relatedReads = ReadBatcher(
            maxBatchesInFlight: settings.readBatchesInFlight, maxBatchSize: 256, executor: executor
        ) { reads in
            try await Self.readRelated(reads, connections: connections, logger: logger)
        }
        self.logger = logger
        self.poolSize = settings.poolSize
        self.now = now
        self.relay = PostgresChangeRelay(
            settings: settings,
            changes: changes,
            localAppends: localAppends,
            retryInterval: listenRetryInterval,
            logger: logger
        )
    }

    public func run() async throws {
        await withDiscardingTaskGroup { group in
            group.addTask { await self.connections.poolStart.open { await self.client.run() } }
            group.addTask { await self.relay.run() }
        }
    }

    /// The connections' own event loop: one thread for the pool's sockets and the batches that use
    /// them, apart from the HTTP server's loops (see `batchExecutor`). Shared by every store in the
    /// process and never shut down, like NIO's singletons: a task that prefers it must always be
    /// able to resume, even after its store stopped.
    private static let connectionLoops = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    private static let connectionExecutor = EventLoopTaskExecutor(eventLoop: connectionLoops.next())

    /// What every connection sets at start, the pool's, the change relay's and a diagnosis's alike
    /// (a value the server refuses fails them the same way).
    static func startupParameters(_ settings: PostgresSettings) -> [(String, String)] {
        // No JIT: a large batched read (80 users) is estimated above `jit_above_cost`, and compiling
        // it took milliseconds per statement. Reads fell from 20,000/s to 4,000-5,000/s with
        // PostgreSQL at 270-350 us per read; every statement here is a short index lookup.
        var parameters = [("jit", "off"), ("application_name", settings.applicationName)]
        if let searchPath = settings.searchPath {
            parameters.append(("search_path", searchPath))
        }
        return parameters
    }

    public func shutdown() async throws {}

    // MARK: Migrations

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

    // MARK: Append

    public func append(
        to stream: String,
        _ events: [NewEvent],
        expectedVersion: ExpectedVersion
    ) async throws -> AppendResult {
        let prepared = try PreparedEvent.prepare(stream: stream, events)
        let keys = prepared.compactMap(\.event.dedupeKey)
        // The first attempt is optimistic: it takes the stream head from the cache (a stream this
        // process has not seen is guessed empty, the common case for a new subscription) and leaves
        // duplicates to the append statement (one event) or the unique index. Races (a concurrent
        // duplicate, another writer moving the head, a stale cache) end an attempt without writing
        // anything; the next attempt reads everything and decides again, with its own stamp, as a
        // transaction that runs again takes a new one.
        for attempt in 1... {
            let optimistic = attempt == 1
            let recordedAt = Timestamp.micros(Timestamp.truncated(now()))
            do {
                let outcome = try await connections.withConnection { connection in
                    try await self.attemptAppend(
                        connection, stream: stream, prepared: prepared, keys: keys,
                        expected: expectedVersion, recordedAt: recordedAt, optimistic: optimistic
                    )
                }
                switch outcome {
                case .done(let result):
                    if !result.isDuplicate {
                        changes.notify()
                        localAppends.notify()
                    }
                    return result
                case .retry:
                    heads.forget(stream)
                }
            } catch {
                heads.forget(stream)
                try Self.rethrowUnlessLostRace(error)
            }
            try await Self.backOff(after: attempt, "append to \(stream)")
        }
        throw EventStoreError(.storageUnavailable, "unreachable")
    }

    private struct RetryAppend: Error {}

    /// Rethrows (as a store error) anything but a lost race, which the caller tries again.
    private static func rethrowUnlessLostRace(_ error: any Error) throws {
        switch unwrap(error) {
        case is RetryAppend:
            return
        case let race as EventStoreError where race.code == .writeRace:
            return
        case let other:
            throw other
        }
    }

    /// Waits a random, growing moment before another attempt, so racing writers spread out; gives up
    /// after 100 attempts.
    private static func backOff(after attempt: Int, _ what: String) async throws {
        if attempt >= 100 {
            throw EventStoreError(.storageUnavailable, "\(what) lost 100 races in a row; try again")
        }
        try await Task.sleep(for: .microseconds(Int.random(in: 0...(200 * min(attempt, 20)))))
    }

    public func transaction<T: Sendable>(_ body: (any ProjectionTransaction) async throws -> T) async throws -> T {
        for attempt in 1... {
            let appended = Mutex(false)
            // Appends remember their new heads before the commit; if it never comes, those heads
            // were never stored, and another process may store its own at the same versions.
            let touched = Mutex<Set<String>>([])
            do {
                let result = try await connections.withTransaction(logger: logger) { connection in
                    try await body(self.projectionTransaction(connection) { result in
                        appended.withLock { $0 = $0 || !result.isDuplicate }
                        touched.withLock { streams in for event in result.events { streams.insert(event.streamID) } }
                    })
                }
                if appended.withLock({ $0 }) {
                    changes.notify()
                    localAppends.notify()
                }
                return result
            } catch {
                for stream in touched.withLock({ $0 }) { heads.forget(stream) }
                try Self.rethrowUnlessLostRace(error)
            }
            try await Self.backOff(after: attempt, "a write transaction")
        }
        throw EventStoreError(.storageUnavailable, "unreachable")
    }

    /// Read models on a connection with an open transaction, which may also append to other streams.
    private func projectionTransaction(
        _ connection: PostgresConnection,
        onAppend: @escaping @Sendable (AppendResult) -> Void = { _ in }
    ) -> PostgresProjectionTransaction {
        let known = TransactionHeads()
        let stamp = TransactionStamp()
        return PostgresProjectionTransaction(
            connection: connection, logger: logger,
            appendEvents: { stream, events, expected in
                let result = try await self.appendInTransaction(connection, to: stream, events, expected: expected, known: known, stamp: stamp)
                onAppend(result)
                return result
            },
            appendToStreams: { appends in
                let results = try await self.appendToStreams(connection, appends, known: known, stamp: stamp)
                results.forEach(onAppend)
                return results
            },
            lockForAppends: { streams, keys, documents in
                try await self.lockHeadsAndDocuments(connection, streams: streams, keys: keys, documents: documents, known: known)
            }
        )
    }

    /// Locks the heads of `streams`, looks up `keys`, then locks and reads `documents`, in one
    /// statement; appends covered by them later in the transaction skip their own lookup.
    private func lockHeadsAndDocuments(
        _ connection: PostgresConnection, streams: [String], keys: [String], documents: [DocumentKey], known: TransactionHeads
    ) async throws -> [Data?] {
        let streams = Array(Set(streams)).sorted()
        let keys = Array(Set(keys))
        var locked: [String: StreamHead] = [:]
        var stored: [String: AppendedEvent] = [:]
        var found = [Data?](repeating: nil, count: documents.count)
        let statement = LockHeadsAndDocumentsStatement(streams: streams, keys: keys, documents: documents)
        for try await row in try await connection.execute(statement, logger: logger) {
            switch row.kind {
            case 0:
                locked[row.stream] = StreamHead(version: row.version, hash: row.hash ?? EventHasher.genesis)
            case 1:
                if let key = row.dedupeKey, let id = row.eventID, let position = row.position {
                    stored[key] = AppendedEvent(eventID: id, position: position, streamID: row.stream, streamVersion: row.version, isDuplicate: true)
                }
            default:
                let index = Int(row.version) - 1
                if found.indices.contains(index) { found[index] = row.document }
            }
        }
        known.lookedUp(streams: streams, locked: locked, keys: keys, stored: stored)
        return found
    }

    /// The stored events of those of `keys` that have one, by key; a plain read, which never waits.
    private func storedEvents(_ connection: PostgresConnection, keys: [String]) async throws -> [String: AppendedEvent] {
        var stored: [String: AppendedEvent] = [:]
        var binds = PostgresBindings()
        binds.append(keys)
        for try await (key, id, position, streamID, version) in try await connection.query(
            PostgresQuery(unsafeSQL: PostgresSQL.duplicates, binds: binds), logger: logger
        ).decode((String, UUID, Int64, String, Int64).self) {
            stored[key] = AppendedEvent(eventID: id, position: position, streamID: streamID, streamVersion: version, isDuplicate: true)
        }
        return stored
    }

    /// Appends to several streams inside an open transaction in two round trips, however many: lock
    /// the heads (sorted, so concurrent batches queue rather than deadlock) and find the stored
    /// duplicates, then move and create the heads and insert every event in one statement. One round
    /// trip when the transaction already holds every head and has looked up every key.
    private func appendToStreams(
        _ connection: PostgresConnection, _ appends: [StreamAppend], known: TransactionHeads, stamp: TransactionStamp
    ) async throws -> [AppendResult] {
        let streams = Array(Set(appends.map(\.stream))).sorted()
        let keys = appends.flatMap { $0.events.compactMap(\.dedupeKey) }
        let held = known.known(streams: streams, keys: keys)
        let knowsStreams = known.knowsAll(streams)
        if held == nil, appends.count == 1, let only = appends.first, !knowsStreams {
            // A lone append the transaction did not lock for beforehand (a projector's) is usually
            // one round trip this way. Its statement guesses the head and would wait on a stream
            // another writer holds, so a stream the transaction has locked or found absent goes the
            // way below instead.
            return [try await appendInTransaction(connection, to: only.stream, only.events, expected: .any, known: known, stamp: stamp)]
        }
        let prepared = try appends.map { try PreparedEvent.prepare(stream: $0.stream, $0.events) }
        var locked: [String: StreamHead] = [:]
        var stored: [String: AppendedEvent] = [:]
        if let held {
            locked = held.locked
            stored = held.stored
        } else {
            if knowsStreams {
                // Only keys are new (a batch's links): a plain read finds their duplicates. Locking the
                // heads again would wait, after this transaction's recorded_at, behind a writer that
                // created a stream found absent here and then locked it (multi-instance probe: 1 s,
                // a deadlock's timeout); such a stream fails the insert instead, and the transaction
                // runs again with a new stamp.
                known.lookedUp(streams: [], locked: [:], keys: keys, stored: try await storedEvents(connection, keys: keys))
            } else {
                _ = try await lockHeadsAndDocuments(connection, streams: streams, keys: keys, documents: [], known: known)
            }
            guard let fresh = known.known(streams: streams, keys: keys) else {
                throw EventStoreError(.databaseError, "a multi-stream append lost track of the heads it locked")
            }
            locked = fresh.locked
            stored = fresh.stored
        }
        // Plan each part on the heads the earlier parts left; a key planned earlier in this call is a
        // duplicate of that row, whose position is known only after the insert.
        let recordedAt = stamp.micros(now)
        var heads = locked
        var planned = stored
        var plans: [AppendPlan] = []
        for (part, events) in zip(appends, prepared) {
            let plan = try AppendPlan(
                stream: part.stream, events: events, expected: .any, head: heads[part.stream] ?? .empty,
                duplicates: planned, recordedAtMicros: recordedAt
            )
            for row in plan.rows {
                if let key = row.dedupeKey {
                    planned[key] = AppendedEvent(eventID: row.eventID, position: 0, streamID: part.stream, streamVersion: row.streamVersion, isDuplicate: true)
                }
            }
            heads[part.stream] = plan.newHead
            plans.append(plan)
        }
        let rows = plans.flatMap { plan in plan.rows.map { (stream: plan.stream, row: $0) } }
        var positions: [UUID: Int64] = [:]
        if !rows.isEmpty {
            let changed = streams.compactMap { stream in
                heads[stream].flatMap { $0 == (locked[stream] ?? .empty) ? nil : (stream: stream, head: $0) }
            }
            let statement = AppendToStreamsStatement(
                moved: changed.filter { locked[$0.stream] != nil },
                created: changed.filter { locked[$0.stream] == nil },
                rows: rows
            )
            for try await row in try await connection.execute(statement, logger: logger) {
                positions[row.eventID] = row.position
            }
            guard positions.count == rows.count else {
                throw EventStoreError(.databaseError, "a multi-stream append stored \(positions.count) of \(rows.count) events")
            }
            for (stream, head) in changed { self.heads.remember(head, for: stream) }
            known.appended(
                heads: changed,
                events: rows.compactMap { part in
                    part.row.dedupeKey.map { key in
                        (key, AppendedEvent(
                            eventID: part.row.eventID, position: positions[part.row.eventID] ?? 0, streamID: part.stream,
                            streamVersion: part.row.streamVersion, isDuplicate: true
                        ))
                    }
                }
            )
        }
        return plans.map { plan in
            var result = plan.result(positions: plan.rows.map { positions[$0.eventID] ?? 0 })
            for index in result.events.indices where result.events[index].isDuplicate && result.events[index].position == 0 {
                result.events[index].position = positions[result.events[index].eventID] ?? 0
            }
            return result
        }
    }

    /// An append inside an open transaction. A lost race cannot be retried alone (the transaction is
    /// the unit), so it throws `RetryAppend` and `transaction` runs its body again.
    private func appendInTransaction(
        _ connection: PostgresConnection,
        to stream: String,
        _ events: [NewEvent],
        expected: ExpectedVersion,
        known: TransactionHeads,
        stamp: TransactionStamp
    ) async throws -> AppendResult {
        let prepared = try PreparedEvent.prepare(stream: stream, events)
        let keys = prepared.compactMap(\.event.dedupeKey)
        // Whatever happens below moves the head and stores the keys behind the record's back.
        known.forget(stream: stream, keys: keys)
        let recordedAt = stamp.micros(now)
        // A guessed head that proves stale costs no error, so the fresh read can follow in the same
        // transaction. So does a stored duplicate of a lone event (its statement checks the key);
        // other dedupe keys go straight to the fresh read, as a duplicate would abort the transaction.
        let guessable = keys.isEmpty || Self.checksDuplicatesInStatement(prepared, expected)
        for optimistic in guessable ? [true, false] : [false] {
            let outcome = try await attemptAppend(
                connection, stream: stream, prepared: prepared, keys: keys,
                expected: expected, recordedAt: recordedAt, optimistic: optimistic
            )
            if case .done(let result) = outcome { return result }
            heads.forget(stream)
        }
        throw RetryAppend()
    }

    /// Whether the append statement alone decides duplicates: one event with no version to check (the
    /// webhook and link case). Otherwise the duplicates are read first, because a stored duplicate
    /// must win over a version conflict.
    private static func checksDuplicatesInStatement(_ prepared: [PreparedEvent], _ expected: ExpectedVersion) -> Bool {
        prepared.count == 1 && expected == .any
    }

    /// Whether an expectation implies the stream already has events, so guessing "empty" is pointless.
    private static func expectsExisting(_ expected: ExpectedVersion) -> Bool {
        if case .exact(let version) = expected { return version > 0 }
        return false
    }

    private enum AttemptOutcome: Sendable {
        case done(AppendResult)
        case retry
    }

    private func attemptAppend(
        _ connection: PostgresConnection,
        stream: String,
        prepared: [PreparedEvent],
        keys: [String],
        expected: ExpectedVersion,
        recordedAt: Int64,
        optimistic: Bool
    ) async throws -> AttemptOutcome {
        var head = StreamHead.empty
        if optimistic, let cached = heads.head(of: stream) {
            head = cached
        } else if !optimistic || Self.expectsExisting(expected) {
            var binds = PostgresBindings()
            binds.append(stream)
            for try await (version, hash) in try await connection.query(
                PostgresQuery(unsafeSQL: PostgresSQL.streamHead, binds: binds), logger: logger
            ).decode((Int64, ByteBuffer).self) {
                head = StreamHead(version: version, hash: Data(buffer: hash))
            }
        }
        var duplicates: [String: AppendedEvent] = [:]
        if !keys.isEmpty && !optimistic && !Self.checksDuplicatesInStatement(prepared, expected) {
            duplicates = try await storedEvents(connection, keys: keys)
        }
        let planned = Result { () throws(EventStoreError) -> AppendPlan in
            try AppendPlan(
                stream: stream, events: prepared, expected: expected, head: head,
                duplicates: duplicates, recordedAtMicros: recordedAt
            )
        }
        if optimistic, case .failure(let error) = planned, error.code == .versionConflict {
            // A cached head may be stale: only a fresh read may answer a conflict.
            return .retry
        }
        let plan = try planned.get()
        guard !plan.rows.isEmpty else { return .done(plan.result(positions: [])) }
        if plan.rows.count == 1 {
            return try await appendOne(connection, stream: stream, plan: plan)
        }

        var insert = PostgresBindings()
        insert.append(stream)
        insert.append(plan.newHead.version)
        insert.append(ByteBuffer(data: plan.newHead.hash))
        insert.append(plan.head.version)
        insert.append(plan.rows.map(\.eventID))
        insert.append(plan.rows.map(\.streamVersion))
        insert.append(plan.rows.map(\.type))
        insert.append(plan.rows.map { Int32($0.schemaVersion) })
        insert.append(plan.rows.map { String(decoding: $0.data, as: UTF8.self) })
        insert.append(plan.rows.map { String(decoding: $0.metadata, as: UTF8.self) })
        insert.append(plan.rows.map(\.recordedAtMicros))
        insert.append(plan.rows.map { $0.dedupeKey ?? "" })
        insert.append(plan.rows.map { ByteBuffer(data: $0.hash) })
        var positionsByVersion: [Int64: Int64] = [:]
        for try await (position, version) in try await connection.query(
            PostgresQuery(unsafeSQL: PostgresSQL.appendEvents, binds: insert), logger: logger
        ).decode((Int64, Int64).self) {
            positionsByVersion[version] = position
        }
        // No rows: the compare-and-set on the head lost to another writer.
        guard positionsByVersion.count == plan.rows.count else { return .retry }
        heads.remember(plan.newHead, for: stream)
        let positions = plan.rows.map { positionsByVersion[$0.streamVersion] ?? 0 }
        return .done(plan.result(positions: positions))
    }

    /// One event, through the prepared statement (the common case: every webhook and submission).
    private func appendOne(_ connection: PostgresConnection, stream: String, plan: AppendPlan) async throws -> AttemptOutcome {
        let statement = AppendOneEventStatement(
            stream: stream, newHead: plan.newHead, expectedHeadVersion: plan.head.version, row: plan.rows[0]
        )
        var inserted: AppendOneEventStatement.Row?
        for try await row in try await connection.execute(statement, logger: logger) {
            inserted = row
        }
        // No row: the compare-and-set on the head lost to another writer.
        guard let inserted else { return .retry }
        if inserted.isDuplicate {
            // Stored since the plan's duplicates were read (or they were left to the statement).
            guard plan.outcomes.count == 1 else { return .retry }
            let existing = AppendedEvent(
                eventID: inserted.eventID, position: inserted.position, streamID: inserted.streamID,
                streamVersion: inserted.streamVersion, isDuplicate: true
            )
            return .done(AppendResult(events: [existing], streamVersion: inserted.headVersion))
        }
        heads.remember(plan.newHead, for: stream)
        return .done(plan.result(positions: [inserted.position]))
    }

    // MARK: Reads

    public func readStream(_ stream: String, from version: Int64, limit: Int?) async throws -> [RecordedEvent] {
        var binds = PostgresBindings()
        binds.append(stream)
        binds.append(max(version, 1))
        binds.append(Int64(limit ?? Int(Int32.max)))
        return try await events(PostgresQuery(unsafeSQL: PostgresSQL.readStream, binds: binds))
    }

    public func readAll(after cursor: EventCursor, limit: Int) async throws -> EventPage {
        var binds = PostgresBindings()
        binds.append(String(cursor.transaction))
        binds.append(cursor.position)
        binds.append(Int64(max(limit, 0)))
        let events = try await events(PostgresQuery(unsafeSQL: PostgresSQL.readAll, binds: binds))
        return EventPage(events: events, next: events.last?.cursor ?? cursor)
    }

    public func readAll(streams: [String], after cursor: EventCursor, limit: Int) async throws -> EventPage {
        var binds = PostgresBindings()
        binds.append(streams)
        binds.append(String(cursor.transaction))
        binds.append(cursor.position)
        binds.append(Int64(max(limit, 0)))
        let events = try await events(PostgresQuery(unsafeSQL: PostgresSQL.readStreams, binds: binds))
        return EventPage(events: events, next: events.last?.cursor ?? cursor)
    }

    /// Connections that fill a rebuilt read-model table at once.
    private static let rebuildConnections = 3

    /// 2000-01-01T00:00:00Z, PostgreSQL's epoch, in microseconds since 1970.
    private static let y2kMicros: Int64 = 946_684_800_000_000

    public func foldingSnapshot() async throws -> FoldSnapshot {
        try await leased { connection in
            for try await snapshot in try await connection.query(PostgresQuery(unsafeSQL: PostgresSQL.foldingSnapshot), logger: logger).decode(String.self) {
                return FoldSnapshot(snapshot)
            }
            throw EventStoreError(.databaseError, "pg_current_snapshot() returned no row")
        }
    }

    public func readAllForFolding(in snapshot: FoldSnapshot, after position: Int64, limit: Int) async throws -> [FoldableEvent] {
        var binds = PostgresBindings()
        binds.append(position)
        binds.append(snapshot.value)
        binds.append(Int64(max(limit, 0)))
        return try await leased { connection in
            var events: [FoldableEvent] = []
            events.reserveCapacity(max(limit, 0))
            for try await row in try await connection.query(PostgresQuery(unsafeSQL: PostgresSQL.readAllForFolding, binds: binds), logger: logger) {
                var (position, transaction, eventID, streamID, type, schema, data, recordedAt) =
                    try row.decode((Int64, Int64, UUID, String, String, Int32, ByteBuffer, ByteBuffer).self)
                // Binary timestamptz: microseconds since 2000-01-01, read exactly (no Double detour).
                guard let sinceY2K = recordedAt.readInteger(as: Int64.self) else {
                    throw EventStoreError(.databaseError, "recorded_at of event \(position) is not a binary timestamptz")
                }
                events.append(FoldableEvent(
                    cursor: EventCursor(transaction: UInt64(transaction), position: position),
                    eventID: eventID, streamID: streamID, type: type, schemaVersion: Int(schema),
                    data: Data(buffer: data), recordedAt: Timestamp.date(micros: sinceY2K + Self.y2kMicros)
                ))
            }
            return events
        }
    }

    public func streamVersion(_ stream: String) async throws -> Int64 {
        var binds = PostgresBindings()
        binds.append(stream)
        return try await leased { connection in
            for try await version in try await connection.query(
                PostgresQuery(unsafeSQL: PostgresSQL.streamVersion, binds: binds), logger: logger
            ).decode(Int64.self) {
                return version
            }
            return 0
        }
    }

    private func events(_ query: PostgresQuery) async throws -> [RecordedEvent] {
        try await leased { connection in
            var events: [RecordedEvent] = []
            for try await row in try await connection.query(query, logger: logger) {
                events.append(try Self.decodeEvent(row))
            }
            return events
        }
    }

    /// Reads the columns listed in `PostgresSQL.eventColumns`.
    static func decodeEvent(_ row: PostgresRow) throws -> RecordedEvent {
        let (position, transaction, eventID, streamID, version, type, schema, data, metadata, micros, key, hash) =
            try row.decode((Int64, String, UUID, String, Int64, String, Int32, ByteBuffer, ByteBuffer, Int64, String?, ByteBuffer).self)
        return RecordedEvent(
            cursor: EventCursor(transaction: UInt64(transaction) ?? 0, position: position),
            eventID: eventID,
            streamID: streamID,
            streamVersion: version,
            type: type,
            schemaVersion: Int(schema),
            // The text columns' bytes as stored, without a detour through String.
            data: Data(buffer: data),
            metadata: Data(buffer: metadata),
            recordedAt: Timestamp.date(micros: micros),
            dedupeKey: key,
            hash: Data(buffer: hash)
        )
    }

    // MARK: Checkpoints and read models

    public func checkpoint(_ name: String) async throws -> EventCursor? {
        var binds = PostgresBindings()
        binds.append(name)
        return try await leased { connection in
            for try await text in try await connection.query(
                PostgresQuery(unsafeSQL: PostgresSQL.checkpoint, binds: binds), logger: logger
            ).decode(String.self) {
                return EventCursor(text)
            }
            return nil
        }
    }

    public func commitProjection(
        checkpoint name: String,
        expected: EventCursor?,
        next: EventCursor,
        _ writes: @Sendable (any ProjectionTransaction) async throws -> Void
    ) async throws {
        try await withStorageErrors {
            try await connections.withTransaction(logger: logger) { connection in
                var binds = PostgresBindings()
                binds.append(name)
                binds.append(next.description)
                let statement: String
                if let expected {
                    binds.append(expected.description)
                    statement = PostgresSQL.moveCheckpoint
                } else {
                    statement = PostgresSQL.insertCheckpoint
                }
                var moved = false
                for try await _ in try await connection.query(PostgresQuery(unsafeSQL: statement, binds: binds), logger: logger) {
                    moved = true
                }
                guard moved else {
                    throw EventStoreError(
                        .checkpointConflict,
                        expected.map { "checkpoint \(name) is not at \($0)" } ?? "checkpoint \(name) already exists"
                    )
                }
                try await writes(self.projectionTransaction(connection))
            }
        }
    }

    public func document(model: String, key: String) async throws -> Data? {
        try await leased { connection in
            try await PostgresProjectionTransaction(connection: connection, logger: logger).document(model: model, key: key)
        }
    }

    /// Concurrent calls share batches (see `ReadBatcher`): one statement answers many users.
    public func document(model: String, key: String, relatedModel: String, keysAt path: [String]) async throws -> DocumentWithRelated? {
        do {
            return try await withStorageErrors {
                try await relatedReads.read(RelatedDocumentRead(model: model, key: key, relatedModel: relatedModel, path: path))
            }
        } catch let error as EventStoreError where error.code == .invalidEvent {
            // The read casts a stored document to jsonb; one it cannot hold is the store's fault,
            // not the reader's input.
            throw EventStoreError(.databaseError, "a stored \(model) document cannot be read as jsonb: \(error.message)")
        }
    }

    /// One statement per kind of read in the batch (in practice one: users and their chains).
    private static func readRelated(
        _ reads: [RelatedDocumentRead],
        connections: ConnectionLeaser,
        logger: Logger
    ) async throws -> [RelatedDocumentRead: DocumentWithRelated] {
        var answers: [RelatedDocumentRead: DocumentWithRelated] = [:]
        let kinds = Dictionary(grouping: reads) { RelatedDocumentRead(model: $0.model, key: "", relatedModel: $0.relatedModel, path: $0.path) }
        try await connections.withConnection { connection in
            for (kind, reads) in kinds {
                let statement = ReadDocumentsWithRelatedStatement(
                    model: kind.model, keys: reads.map(\.key), path: kind.path, relatedModel: kind.relatedModel
                )
                var found: [String: DocumentWithRelated] = [:]
                for try await row in try await connection.execute(statement, logger: logger) {
                    let keys = row.relatedKeys ?? []
                    let data = row.relatedData ?? []
                    guard keys.count == data.count else {
                        throw EventStoreError(.databaseError, "document \(row.key) came back with \(keys.count) related keys and \(data.count) documents")
                    }
                    let named = zip(keys, data)
                        .map { ProjectionDocument(model: kind.relatedModel, key: $0, data: Data(buffer: $1)) }
                        .sorted { $0.key < $1.key }
                    found[row.key] = DocumentWithRelated(data: row.data, related: named)
                }
                for read in reads {
                    answers[read] = found[read.key]
                }
            }
        }
        return answers
    }

    public func projectionDocuments() async throws -> [ProjectionDocument] {
        try await leased { connection in
            var documents: [ProjectionDocument] = []
            for try await (model, key, data) in try await connection.query(
                PostgresQuery(unsafeSQL: PostgresSQL.allDocuments), logger: logger
            ).decode((String, String, String).self) {
                documents.append(ProjectionDocument(model: model, key: key, data: Data(data.utf8)))
            }
            return documents
        }
    }

    public func replaceProjections(with documents: [ProjectionDocument], foldedEvents: Int) async throws {
        try await withStorageErrors {
            try await connections.withConnection { connection in
                _ = try await connection.query(PostgresQuery(unsafeSQL: PostgresSQL.dropRebuild), logger: logger)
                _ = try await connection.query(PostgresQuery(unsafeSQL: PostgresSQL.createRebuild), logger: logger)
            }
            // The new table is nobody else's until the swap: fill it over a few connections at once,
            // so PostgreSQL compresses and indexes on every core.
            let batches = stride(from: 0, to: documents.count, by: 2000).map { documents[$0..<min($0 + 2000, documents.count)] }
            // Each worker holds its connection for all its batches: with more workers than the pool
            // has connections, the rest would wait past acquire_timeout and fail the rebuild.
            let workers = min(Self.rebuildConnections, poolSize, max(1, batches.count))
            try await withThrowingDiscardingTaskGroup { group in
                for first in 0..<workers {
                    group.addTask {
                        try await self.connections.withConnection { connection in
                            for index in stride(from: first, to: batches.count, by: workers) {
                                let batch = batches[index]
                                var binds = PostgresBindings()
                                binds.append(batch.map(\.model))
                                binds.append(batch.map(\.key))
                                binds.append(batch.map { String(decoding: $0.data, as: UTF8.self) })
                                _ = try await connection.query(PostgresQuery(unsafeSQL: PostgresSQL.fillRebuild, binds: binds), logger: self.logger)
                            }
                        }
                    }
                }
            }
            for attempt in 1...Self.swapLockAttempts {
                if try await swapRebuild(foldedEvents: foldedEvents) { return }
                guard attempt < Self.swapLockAttempts else { break }
                logger.warning(
                    "rebuild: the read models stayed in use, the swap waits again",
                    metadata: ["attempt": "\(attempt)", "waited": "\(Self.swapLockWait)"]
                )
                try await Task.sleep(for: Self.swapLockPause)
            }
            try? await connections.withConnection { connection in
                _ = try await connection.query(PostgresQuery(unsafeSQL: PostgresSQL.dropRebuild), logger: logger)
            }
            throw EventStoreError(
                .rebuildBlocked,
                "the read models stayed in use through \(Self.swapLockAttempts) waits of \(Self.swapLockWait) for the swap's lock (a long transaction holds the projections table: see pg_stat_activity); nothing was changed: rebuild again once it ends"
            )
        }
    }

    /// How long one swap waits for the read models' lock. Every read and write of them queues behind
    /// a waiting swap, so the wait is short and tried again after a pause that lets them through.
    static let swapLockWait: Duration = .seconds(1)
    /// How many times the swap waits for its lock before giving up.
    static let swapLockAttempts = 3
    /// The pause between two waits, in which the requests queued behind the swap go on.
    static let swapLockPause: Duration = .milliseconds(500)

    /// The swap's transaction: locks the read models, checks the events folded are all there is and
    /// renames the filled table in. False when the lock did not come within ``swapLockWait``.
    private func swapRebuild(foldedEvents: Int) async throws -> Bool {
        struct LockNotGranted: Error {}
        do {
            try await connections.withConnection { connection in
                do {
                    try await connection.withTransaction(logger: logger) { connection in
                        _ = try await connection.query(PostgresQuery(unsafeSQL: PostgresSQL.lockTimeout(Self.swapLockWait)), logger: logger)
                        do {
                            for statement in PostgresSQL.lockForSwap {
                                _ = try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                            }
                        } catch let error as PSQLError where error.sqlState == "55P03" {
                            throw LockNotGranted()
                        }
                        var stored = 0
                        for try await count in try await connection.query(PostgresQuery(unsafeSQL: PostgresSQL.eventCount), logger: logger).decode(Int64.self) {
                            stored = Int(count)
                        }
                        guard stored == foldedEvents else { throw EventStoreError.rebuildOutdated(stored: stored, folded: foldedEvents) }
                        for statement in PostgresSQL.swapRebuild {
                            _ = try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                        }
                    }
                } catch {
                    // postgres-nio wraps the closure's error in its transaction error.
                    let error = Self.unwrap(error)
                    if let refused = error as? EventStoreError, refused.code == .rebuildOutdated {
                        // The filled table is of no use; the next rebuild would drop it anyway.
                        _ = try? await connection.query(PostgresQuery(unsafeSQL: PostgresSQL.dropRebuild), logger: logger)
                    }
                    throw error
                }
            }
            return true
        } catch is LockNotGranted {
            return false
        }
    }

    public func readServerClock() async throws -> ClockReading? {
        try await leased { connection in
            let before = Timestamp.micros(now())
            var server: Int64?
            for try await micros in try await connection.query(PostgresQuery(unsafeSQL: PostgresSQL.serverClock), logger: logger).decode(Int64.self) {
                server = micros
            }
            let after = Timestamp.micros(now())
            guard let server else { return nil }
            let middle = before + (after - before) / 2
            return ClockReading(aheadOfServerMicros: middle - server, uncertaintyMicros: max(0, (after - before) / 2))
        }
    }

    public func eventsAheadOfServer() async throws -> Int {
        try await leased { connection in
            for try await count in try await connection.query(PostgresQuery(unsafeSQL: PostgresSQL.eventsAheadOfServer), logger: logger).decode(Int64.self) {
                return Int(count)
            }
            return 0
        }
    }

    public func eventCount() async throws -> Int {
        try await leased { connection in
            for try await count in try await connection.query(PostgresQuery(unsafeSQL: PostgresSQL.eventCount), logger: logger).decode(Int64.self) {
                return Int(count)
            }
            return 0
        }
    }

    public func recordRejection(source: String, code: String, detail: String, body: Data, requestID: String?) async throws {
        var binds = PostgresBindings()
        binds.append(Rejection.storedText(source))
        binds.append(Rejection.storedText(code))
        binds.append(Rejection.storedText(detail))
        binds.append(Rejection.storedBody(body))
        binds.append(requestID.map(Rejection.storedText))
        try await leased { connection in
            var inserted: Int64 = 0
            for try await id in try await connection.query(PostgresQuery(unsafeSQL: PostgresSQL.insertRejection, binds: binds), logger: logger).decode(Int64.self) {
                inserted = id
            }
            // Trimming every hundredth insert keeps the table bounded without a delete per request.
            // The row is kept by then: a failed trim is logged, not thrown, or the refusal would be
            // answered as the store's failure and kept twice when Apple sends it again.
            if inserted > Int64(rejectionLimit) && inserted % 100 == 0 {
                var trim = PostgresBindings()
                trim.append(inserted - Int64(rejectionLimit))
                do {
                    _ = try await connection.query(PostgresQuery(unsafeSQL: PostgresSQL.trimRejections, binds: trim), logger: logger)
                } catch {
                    logger.warning("could not trim the rejections table; the next hundredth refusal tries again", metadata: ["error": "\(Self.unwrap(error))"])
                }
            }
        }
    }

    public func rejections(limit: Int) async throws -> [Rejection] {
        var binds = PostgresBindings()
        binds.append(Int64(limit))
        return try await leased { connection in
            var rejections: [Rejection] = []
            for try await (micros, source, code, detail, body, requestID) in try await connection.query(
                PostgresQuery(unsafeSQL: PostgresSQL.recentRejections, binds: binds), logger: logger
            ).decode((Int64, String, String, String, String, String?).self) {
                rejections.append(Rejection(
                    receivedAt: Timestamp.date(micros: micros), source: source, code: code, detail: detail, body: body, requestID: requestID
                ))
            }
            return rejections
        }
    }

    // MARK: Audit and health

    public func audit(against checkpoint: AuditCheckpoint, progress: (@Sendable (AuditProgress) -> Void)?) async throws -> AuditReport {
        let total = try await eventCount()
        var auditor = ChainAuditor(totalEvents: total, progress: progress, against: checkpoint)
        var after = ("", Int64(0))
        while true {
            var binds = PostgresBindings()
            binds.append(after.0)
            binds.append(after.1)
            binds.append(Int64(1000))
            let page = try await leased { connection in
                var rows: [ChainRow] = []
                for try await row in try await connection.query(PostgresQuery(unsafeSQL: PostgresSQL.chainPage, binds: binds), logger: logger) {
                    let event = try Self.decodeEvent(row)
                    let columns = row.makeRandomAccess()
                    let headVersion = try columns[12].decode(Int64?.self)
                    let headHash = try columns[13].decode(ByteBuffer?.self)
                    let head = headVersion.map { StreamHead(version: $0, hash: headHash.map { Data(buffer: $0) } ?? Data()) }
                    rows.append(ChainRow(event: event, head: head))
                }
                return rows
            }
            guard let last = page.last else { break }
            for row in page { auditor.check(row) }
            after = (last.event.streamID, last.event.streamVersion)
        }
        let orphans = try await leased { connection in
            var heads: [(String, Int64)] = []
            for try await (stream, version) in try await connection.query(PostgresQuery(unsafeSQL: PostgresSQL.headsWithoutEvents), logger: logger)
                .decode((String, Int64).self) {
                heads.append((stream, version))
            }
            return heads
        }
        for (stream, version) in orphans { auditor.headWithoutEvents(stream: stream, version: version) }
        return auditor.finish()
    }

    /// Runs `body` on a leased connection (see `ConnectionLeaser`), with postgres-nio failures mapped;
    /// `wait` shortens the wait for the connection below `acquire_timeout`.
    func leased<T>(waitingAtMost wait: Duration? = nil, _ body: (PostgresConnection) async throws -> T) async throws -> T {
        try await withStorageErrors { try await connections.withConnection(waitingAtMost: wait, body) }
    }

    /// Maps postgres-nio failures onto the store's typed errors.
    func withStorageErrors<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch {
            throw Self.unwrap(error)
        }
    }

    /// The error to report: the closure's own error out of a transaction wrapper, store errors for
    /// postgres-nio's.
    static func unwrap(_ error: any Error) -> any Error {
        switch error {
        case let error as PostgresTransactionError:
            if let closureError = error.closureError { return unwrap(closureError) }
            if let failure = error.beginError ?? error.commitError ?? error.rollbackError { return unwrap(failure) }
            return EventStoreError(.storageUnavailable, "PostgreSQL transaction failed")
        case let error as PSQLError:
            return error.storeError
        default:
            return error
        }
    }
}
