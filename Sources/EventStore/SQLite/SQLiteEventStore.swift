import Foundation
import Logging
import NIOCore
import SQLiteNIO
import Synchronization

/// The embedded adapter: events in one SQLite file in WAL mode, the zero-configuration default.
///
/// One writer connection behind a `SerialGate` takes every write transaction (`BEGIN IMMEDIATE`), so
/// positions commit in order; a second, read-only connection serves reads without waiting for writers.
public final class SQLiteEventStore: EventStore {
    public let dialect = StorageDialect.sqlite
    public let changes = ChangeSignal()

    let writer: SQLiteConnection
    let reader: SQLiteConnection
    let path: String
    private let gate = SerialGate()

    /// How many writes wait for the one writer (tests use it to know a write has queued).
    var writesWaiting: Int { gate.waitingCount }
    private let logger: Logger
    private let now: @Sendable () -> Date

    private init(writer: SQLiteConnection, reader: SQLiteConnection, path: String, logger: Logger, now: @escaping @Sendable () -> Date) {
        self.writer = writer
        self.reader = reader
        self.path = path
        self.logger = logger
        self.now = now
    }

    /// Opens (creating if needed) the database file at `path`.
    public static func open(
        path: String,
        logger: Logger = Logger(label: "subledger.eventstore.sqlite"),
        now: @escaping @Sendable () -> Date = { Date() }
    ) async throws -> SQLiteEventStore {
        // A connection opened before a later step fails is closed here: sqlite-nio asserts that
        // every connection is closed (a file that is not SQLite fails at the first pragma).
        var opened: [SQLiteConnection] = []
        do {
            let writer = try await SQLiteConnection.open(storage: .file(path: path), logger: logger)
            opened.append(writer)
            for pragma in SQLiteSQL.writerPragmas { _ = try await writer.query(pragma) }
            let reader = try await SQLiteConnection.open(storage: .file(path: path), logger: logger)
            opened.append(reader)
            for pragma in SQLiteSQL.readerPragmas { _ = try await reader.query(pragma) }
            return SQLiteEventStore(writer: writer, reader: reader, path: path, logger: logger, now: now)
        } catch {
            for connection in opened {
                let closed: EventLoopFuture<Void> = connection.close()
                try? await closed.get()
            }
            guard let error = error as? SQLiteError else { throw error }
            throw EventStoreError(.storageUnavailable, openFailure(error, path: path))
        }
    }

    /// Why `path` could not be opened, in an operator's words, naming the file in full.
    static func openFailure(_ error: SQLiteError, path: String) -> String {
        let file = DatabaseURL.sqlite(path: path).sqliteFile ?? path
        if let problem = directoryProblem(of: file) {
            return "cannot open SQLite database \(file): \(problem) (SQLite creates the file, not its directory)"
        }
        if case .notADatabase = error.reason {
            return "cannot open SQLite database \(file): the file is not a SQLite database (\(error.message))"
        }
        return "cannot open SQLite database \(file): \(error.message)"
    }

    /// What keeps a SQLite file from being created at the absolute path `file`: its directory is
    /// missing or is a file; nil when the directory is there.
    public static func directoryProblem(of file: String) -> String? {
        let directory = URL(fileURLWithPath: file).deletingLastPathComponent().path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) else {
            return "the directory \(directory) does not exist"
        }
        return isDirectory.boolValue ? nil : "\(directory) is a file, not a directory"
    }

    public func run() async throws {
        // Nothing runs in the background: wait until the surrounding task is cancelled.
        let (never, _) = AsyncStream<Never>.makeStream()
        for await _ in never {}
    }

    public func shutdown() async throws {
        try await gate.withExclusiveAccess {
            // Close both even if the first fails: sqlite-nio asserts every connection is closed.
            // Through the future-returning `close`: the async one is cancelled with its task, and a
            // store is often shut down by a task the service group has already cancelled (another
            // service failed to start), which left both open.
            var failure: (any Error)?
            for connection in [self.reader, self.writer] {
                let closed: EventLoopFuture<Void> = connection.close()
                do { try await closed.get() } catch { failure = failure ?? error }
            }
            if let failure { throw failure }
        }
    }

    // MARK: Transactions

    /// Runs `body` in a write transaction on the writer connection, one at a time.
    private func writeTransaction<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        try await withStorageErrors {
            try await gate.withExclusiveAccess {
                _ = try await writer.query(SQLiteSQL.begin)
                do {
                    let result = try await body()
                    _ = try await writer.query(SQLiteSQL.commit)
                    return result
                } catch {
                    _ = try? await writer.query(SQLiteSQL.rollback)
                    throw error
                }
            }
        }
    }

    // MARK: Migrations

    public func pendingMigrations(waitingAtMost wait: Duration?) async throws -> [Migration] {
        let shipped = try MigrationCatalog.migrations(for: .sqlite)
        let applied = try await withStorageErrors { () -> Set<Int> in
            guard try await !reader.query(SQLiteSQL.migrationsTableExists).isEmpty else { return [] }
            return Set(try await reader.query(SQLiteSQL.appliedMigrations).map { Int($0.column("version")?.integer ?? 0) })
        }
        return shipped.filter { !applied.contains($0.version) }
    }

    @discardableResult
    public func migrate() async throws -> [AppliedMigration] {
        let shipped = try MigrationCatalog.migrations(for: .sqlite)
        return try await writeTransaction {
            _ = try await writer.query(SQLiteSQL.createMigrationsTable)
            let applied = try await writer.query(SQLiteSQL.appliedMigrations).map { row in
                AppliedMigration(
                    version: Int(row.column("version")?.integer ?? 0),
                    name: row.column("name")?.string ?? "",
                    checksum: row.column("checksum")?.string ?? ""
                )
            }
            var appliedNow: [AppliedMigration] = []
            for migration in try MigrationCatalog.pending(shipped: shipped, applied: applied) {
                for statement in SQLScriptSplitter.statements(in: migration.sql) {
                    _ = try await writer.query(statement)
                }
                _ = try await writer.query(SQLiteSQL.recordMigration, [
                    .integer(migration.version), .text(migration.name), .text(migration.checksum),
                    .integer(Int(Timestamp.micros(now()))),
                ])
                appliedNow.append(AppliedMigration(version: migration.version, name: migration.name, checksum: migration.checksum))
                logger.info("applied migration", metadata: ["migration": "\(migration.name)"])
            }
            return appliedNow
        }
    }

    // MARK: Append

    public func append(
        to stream: String,
        _ events: [NewEvent],
        expectedVersion: ExpectedVersion
    ) async throws -> AppendResult {
        let prepared = try PreparedEvent.prepare(stream: stream, events)
        let keys = prepared.compactMap(\.event.dedupeKey)
        let result = try await writeTransaction {
            try await appendRows(to: stream, prepared: prepared, keys: keys, expected: expectedVersion, stamp: TransactionStamp())
        }
        if !result.isDuplicate { changes.notify() }
        return result
    }

    public func transaction<T: Sendable>(_ body: (any ProjectionTransaction) async throws -> T) async throws -> T {
        let appended = Mutex(false)
        let transaction = projectionTransaction { result in appended.withLock { $0 = $0 || !result.isDuplicate } }
        let result = try await writeTransaction { try await body(transaction) }
        if appended.withLock({ $0 }) { changes.notify() }
        return result
    }

    /// The writer's view of the open write transaction, able to append to other streams in it.
    private func projectionTransaction(
        onAppend: @escaping @Sendable (AppendResult) -> Void = { _ in }
    ) -> SQLiteProjectionTransaction {
        // One stamp for every append the transaction makes.
        let stamp = TransactionStamp()
        return SQLiteProjectionTransaction(connection: writer) { stream, events, expected in
            let prepared = try PreparedEvent.prepare(stream: stream, events)
            let result = try await self.appendRows(
                to: stream, prepared: prepared, keys: prepared.compactMap(\.event.dedupeKey), expected: expected, stamp: stamp
            )
            onAppend(result)
            return result
        }
    }

    /// Appends inside the open write transaction: reads the head and the duplicates, then inserts,
    /// stamped with the transaction's `recorded_at`.
    private func appendRows(
        to stream: String, prepared: [PreparedEvent], keys: [String], expected expectedVersion: ExpectedVersion, stamp: TransactionStamp
    ) async throws -> AppendResult {
        var head = StreamHead.empty
        if let row = try await writer.query(SQLiteSQL.streamHead, [.text(stream)]).first {
            head = StreamHead(version: Int64(row.column("version")?.integer ?? 0), hash: Self.blob(row.column("head_hash")))
        }
        var duplicates: [String: AppendedEvent] = [:]
        if !keys.isEmpty {
            for row in try await writer.query(SQLiteSQL.duplicates(count: keys.count), keys.map { .text($0) }) {
                guard let key = row.column("dedupe_key")?.string else { continue }
                duplicates[key] = AppendedEvent(
                    eventID: UUID(uuidString: row.column("event_id")?.string ?? "") ?? UUID(),
                    position: Int64(row.column("position")?.integer ?? 0),
                    streamID: row.column("stream_id")?.string ?? "",
                    streamVersion: Int64(row.column("stream_version")?.integer ?? 0),
                    isDuplicate: true
                )
            }
        }
        let plan = try AppendPlan(
            stream: stream, events: prepared, expected: expectedVersion, head: head,
            duplicates: duplicates, recordedAtMicros: stamp.micros(now)
        )
        var positions: [Int64] = []
        for row in plan.rows {
            let inserted = try await writer.query(SQLiteSQL.insertEvent, [
                .text(row.eventID.lowercaseString),
                .text(stream),
                .integer(Int(row.streamVersion)),
                .text(row.type),
                .integer(row.schemaVersion),
                .text(String(decoding: row.data, as: UTF8.self)),
                .text(String(decoding: row.metadata, as: UTF8.self)),
                .integer(Int(row.recordedAtMicros)),
                row.dedupeKey.map { .text($0) } ?? .null,
                .blob(ByteBuffer(data: row.hash)),
            ])
            positions.append(Int64(inserted.first?.column("position")?.integer ?? 0))
        }
        if !plan.rows.isEmpty {
            _ = try await writer.query(SQLiteSQL.moveHead, [
                .text(stream), .integer(Int(plan.newHead.version)), .blob(ByteBuffer(data: plan.newHead.hash)),
            ])
        }
        return plan.result(positions: positions)
    }

    // MARK: Reads

    public func readStream(_ stream: String, from version: Int64, limit: Int?) async throws -> [RecordedEvent] {
        try await withStorageErrors {
            try await reader.query(SQLiteSQL.readStream, [
                .text(stream), .integer(Int(max(version, 1))), .integer(limit.map { max($0, 0) } ?? -1),
            ]).map(Self.decodeEvent)
        }
    }

    public func readAll(after cursor: EventCursor, limit: Int) async throws -> EventPage {
        let events = try await withStorageErrors {
            try await reader.query(SQLiteSQL.readAll, [.integer(Int(cursor.position)), .integer(max(limit, 0))])
                .map(Self.decodeEvent)
        }
        return EventPage(events: events, next: events.last?.cursor ?? cursor)
    }

    public func readAll(streams: [String], after cursor: EventCursor, limit: Int) async throws -> EventPage {
        let names = String(decoding: try JSONEncoder().encode(streams), as: UTF8.self)
        let events = try await withStorageErrors {
            try await reader.query(SQLiteSQL.readStreams, [.text(names), .integer(Int(cursor.position)), .integer(max(limit, 0))])
                .map(Self.decodeEvent)
        }
        return EventPage(events: events, next: events.last?.cursor ?? cursor)
    }

    /// SQLite commits one writer at a time, in position order, so the history committed now is every
    /// position up to the highest.
    public func foldingSnapshot() async throws -> FoldSnapshot {
        try await withStorageErrors {
            FoldSnapshot(String(try await reader.query(SQLiteSQL.highestPosition).first?.column("position")?.integer ?? 0))
        }
    }

    public func readAllForFolding(in snapshot: FoldSnapshot, after position: Int64, limit: Int) async throws -> [FoldableEvent] {
        guard let highest = Int64(snapshot.value) else {
            throw EventStoreError(.databaseError, "not an SQLite fold snapshot: \(snapshot.value)")
        }
        let page = try await readAll(after: EventCursor(transaction: 0, position: position), limit: limit).events
        return page.prefix { $0.cursor.position <= highest }.map(FoldableEvent.init)
    }

    public func streamVersion(_ stream: String) async throws -> Int64 {
        try await withStorageErrors {
            Int64(try await reader.query(SQLiteSQL.streamVersion, [.text(stream)]).first?.column("version")?.integer ?? 0)
        }
    }

    static func decodeEvent(_ row: SQLiteRow) throws -> RecordedEvent {
        guard
            let position = row.column("position")?.integer,
            let eventID = row.column("event_id")?.string.flatMap(UUID.init(uuidString:)),
            let streamID = row.column("stream_id")?.string,
            let version = row.column("stream_version")?.integer,
            let type = row.column("type")?.string,
            let schema = row.column("schema_version")?.integer,
            let data = row.column("data")?.string,
            let metadata = row.column("metadata")?.string,
            let micros = row.column("recorded_at")?.integer
        else {
            throw EventStoreError(.databaseError, "an events row has a missing or mistyped column: \(row)")
        }
        return RecordedEvent(
            cursor: EventCursor(transaction: 0, position: Int64(position)),
            eventID: eventID,
            streamID: streamID,
            streamVersion: Int64(version),
            type: type,
            schemaVersion: Int(schema),
            data: Data(data.utf8),
            metadata: Data(metadata.utf8),
            recordedAt: Timestamp.date(micros: Int64(micros)),
            dedupeKey: row.column("dedupe_key")?.string,
            hash: blob(row.column("hash"))
        )
    }

    static func blob(_ data: SQLiteData?) -> Data {
        guard case .blob(let buffer)? = data else { return Data() }
        return Data(buffer: buffer)
    }

    // MARK: Checkpoints and read models

    public func checkpoint(_ name: String) async throws -> EventCursor? {
        try await withStorageErrors {
            try await reader.query(SQLiteSQL.checkpoint, [.text(name)]).first?.column("cursor")?.string.flatMap(EventCursor.init)
        }
    }

    public func commitProjection(
        checkpoint name: String,
        expected: EventCursor?,
        next: EventCursor,
        _ writes: @Sendable (any ProjectionTransaction) async throws -> Void
    ) async throws {
        let appended = Mutex(false)
        let transaction = projectionTransaction { result in appended.withLock { $0 = $0 || !result.isDuplicate } }
        try await writeTransaction {
            let stamp = SQLiteData.integer(Int(Timestamp.micros(now())))
            let moved: [SQLiteRow]
            if let expected {
                moved = try await writer.query(SQLiteSQL.moveCheckpoint, [.text(name), .text(next.description), .text(expected.description), stamp])
            } else {
                moved = try await writer.query(SQLiteSQL.insertCheckpoint, [.text(name), .text(next.description), stamp])
            }
            guard !moved.isEmpty else {
                throw EventStoreError(
                    .checkpointConflict,
                    expected.map { "checkpoint \(name) is not at \($0)" } ?? "checkpoint \(name) already exists"
                )
            }
            try await writes(transaction)
        }
        // A projector's appends wake readers as any other write's do.
        if appended.withLock({ $0 }) { changes.notify() }
    }

    public func document(model: String, key: String) async throws -> Data? {
        try await withStorageErrors {
            try await SQLiteProjectionTransaction(connection: reader).document(model: model, key: key)
        }
    }

    /// One statement: separate reads of the user and of each chain could straddle a commit and mix
    /// a user document with chains of another moment.
    public func document(model: String, key: String, relatedModel: String, keysAt path: [String]) async throws -> DocumentWithRelated? {
        try MemberPath.require(path, relatedModel: relatedModel)
        let jsonPath = MemberPath.sqlite(path)
        let rows: [SQLiteRow]
        do {
            rows = try await withStorageErrors {
                try await reader.query(SQLiteSQL.documentWithRelated, [.text(model), .text(key), .text(relatedModel), .text(jsonPath)])
            }
        } catch let error as EventStoreError where error.code == .invalidEvent {
            // "malformed JSON" here is a stored document's, not the caller's input, as on PostgreSQL.
            throw EventStoreError(.databaseError, "the stored document \(model)/\(key) is not JSON SQLite can read")
        }
        guard let main = rows.first(where: { $0.column("related")?.integer == 0 }), let text = main.column("data")?.string else { return nil }
        let related = rows.compactMap { row -> ProjectionDocument? in
            guard row.column("related")?.integer == 1, let key = row.column("key")?.string, let data = row.column("data")?.string else { return nil }
            return ProjectionDocument(model: relatedModel, key: key, data: Data(data.utf8))
        }
        return DocumentWithRelated(data: Data(text.utf8), related: related.sorted { $0.key < $1.key })
    }

    public func projectionDocuments() async throws -> [ProjectionDocument] {
        try await withStorageErrors {
            try await reader.query(SQLiteSQL.allDocuments).map { row in
                ProjectionDocument(
                    model: row.column("model")?.string ?? "",
                    key: row.column("key")?.string ?? "",
                    data: Data((row.column("data")?.string ?? "").utf8)
                )
            }
        }
    }

    public func replaceProjections(with documents: [ProjectionDocument], foldedEvents: Int) async throws {
        try StoredName.require(replacing: documents)
        try await writeTransaction {
            // BEGIN IMMEDIATE holds every other writer off, this process's and any other's, until
            // the swap commits: the count cannot change under it.
            let stored = try await writer.query(SQLiteSQL.eventCount).first?.column("count")?.integer ?? 0
            guard stored == foldedEvents else { throw EventStoreError.rebuildOutdated(stored: stored, folded: foldedEvents) }
            _ = try await writer.query(SQLiteSQL.dropRebuild)
            _ = try await writer.query(SQLiteSQL.createRebuild)
            // SQLite binds at most 32766 parameters per statement: 300 rows of 3 stay far below.
            var start = 0
            while start < documents.count {
                let batch = documents[start..<min(start + 300, documents.count)]
                let binds = batch.flatMap { [SQLiteData.text($0.model), .text($0.key), .text(String(decoding: $0.data, as: UTF8.self))] }
                _ = try await writer.query(SQLiteSQL.fillRebuild(rows: batch.count), binds)
                start += batch.count
            }
            for statement in SQLiteSQL.swapRebuild {
                _ = try await writer.query(statement)
            }
        }
    }

    public func eventCount() async throws -> Int {
        try await withStorageErrors {
            try await reader.query(SQLiteSQL.eventCount).first?.column("count")?.integer ?? 0
        }
    }

    public func recordRejection(source: String, code: String, detail: String, body: Data, requestID: String?) async throws {
        let stamp = Int(Timestamp.micros(now()))
        let text = Rejection.storedBody(body)
        try await writeTransaction {
            let rows = try await writer.query(SQLiteSQL.insertRejection, [
                .integer(stamp), .text(Rejection.storedText(source)), .text(Rejection.storedText(code)),
                .text(Rejection.storedText(detail)), .text(text), requestID.map { .text(Rejection.storedText($0)) } ?? .null,
            ])
            if let id = rows.first?.column("id")?.integer, id > rejectionLimit {
                _ = try await writer.query(SQLiteSQL.trimRejections, [.integer(id - rejectionLimit)])
            }
        }
    }

    public func rejections(limit: Int) async throws -> [Rejection] {
        try await withStorageErrors {
            try await reader.query(SQLiteSQL.recentRejections, [.integer(max(limit, 0))]).map { row in
                Rejection(
                    receivedAt: Timestamp.date(micros: Int64(row.column("received_at")?.integer ?? 0)),
                    source: row.column("source")?.string ?? "",
                    code: row.column("code")?.string ?? "",
                    detail: row.column("detail")?.string ?? "",
                    body: row.column("body")?.string ?? "",
                    requestID: row.column("request_id")?.string
                )
            }
        }
    }

    // MARK: Audit and health

    public func audit(against checkpoint: AuditCheckpoint, progress: (@Sendable (AuditProgress) -> Void)?) async throws -> AuditReport {
        try await withStorageErrors {
            let total = try await eventCount()
            var auditor = ChainAuditor(totalEvents: total, progress: progress, against: checkpoint)
            var after: (String, Int64) = ("", 0)
            while true {
                let rows = try await reader.query(SQLiteSQL.chainPage, [.text(after.0), .integer(Int(after.1)), .integer(1000)])
                guard !rows.isEmpty else { break }
                for row in rows {
                    let head = row.column("head_version")?.integer.map {
                        StreamHead(version: Int64($0), hash: Self.blob(row.column("head_hash")))
                    }
                    guard let event = try? Self.decodeEvent(row) else {
                        // Reported, and the walk goes on past it, as long as the row still says
                        // where it is (the columns the walk pages by).
                        guard let stream = row.column("stream_id")?.string, let version = row.column("stream_version")?.integer else {
                            throw EventStoreError(.databaseError, "an events row has no readable stream_id and stream_version: \(row)")
                        }
                        auditor.unreadable(stream: stream, version: Int64(version), position: Int64(row.column("position")?.integer ?? 0), head: head)
                        after = (stream, Int64(version))
                        continue
                    }
                    auditor.check(ChainRow(event: event, head: head))
                    after = (event.streamID, event.streamVersion)
                }
            }
            for row in try await reader.query(SQLiteSQL.headsWithoutEvents) {
                auditor.headWithoutEvents(stream: row.column("stream_id")?.string ?? "", version: Int64(row.column("version")?.integer ?? 0))
            }
            return auditor.finish()
        }
    }

    /// Maps sqlite-nio failures onto the store's typed errors.
    private func withStorageErrors<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as SQLiteError {
            if error.message.contains("CHECK constraint failed") || error.message.contains("malformed JSON") {
                throw EventStoreError(.invalidEvent, "event data and metadata must be JSON objects")
            }
            if error.message.contains("UNIQUE constraint failed: events.event_id") {
                throw EventStoreError(.invalidEvent, "an event with this event id is already stored; give each event a new id or a dedupe key")
            }
            switch error.reason {
            case .busy, .locked, .busyTimeout, .ioError, .full, .cantOpen, .readOnly:
                throw EventStoreError(.storageUnavailable, "SQLite is unavailable: \(error.message)")
            default:
                throw EventStoreError(.databaseError, "SQLite refused the statement: \(error.message)")
            }
        }
    }
}
