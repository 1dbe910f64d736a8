import Foundation

/// The storage port: an append-only, hash-chained log of events grouped into streams.
///
/// Two adapters implement it with the same semantics, proved by one shared contract test suite:
/// `PostgresEventStore` for production and `SQLiteEventStore` as the zero-configuration default.
/// Guarantees every adapter keeps:
/// - Appends to one stream are atomic and checked against an `ExpectedVersion`; a mismatch throws
///   `version_conflict`, never a silent drop.
/// - An event whose `dedupeKey` is already stored is not written again; the existing event is returned
///   flagged as a duplicate, also when the duplicates race.
/// - The database refuses UPDATE, DELETE and TRUNCATE on events, and each event's hash chains to the
///   previous one in its stream, so rewriting history is both blocked and detectable.
/// - `readAll` never skips an event that commits after later positions were read.
public protocol EventStore: Sendable {
    /// Which adapter this is, for logs and reports (`postgres`, `sqlite`).
    var dialect: StorageDialect { get }

    /// Applies pending numbered migrations; returns the ones applied now.
    @discardableResult
    func migrate() async throws -> [AppliedMigration]

    /// The migrations this build ships that the database has not applied, in order, read without
    /// changing anything (a database with no schema yet has every one pending). Migrations the
    /// database has and this build does not ship are not counted, nor are checksums compared (both
    /// are `migrate`'s to refuse): an older build beside a newer schema still serves during a
    /// rolling deploy.
    ///
    /// `wait` bounds how long to wait for a pooled connection when it is shorter than the store's
    /// own acquire timeout (a readiness probe must answer before its prober gives up); nil waits
    /// that timeout. A store without a pool has nothing to wait for and ignores it.
    func pendingMigrations(waitingAtMost wait: Duration?) async throws -> [Migration]

    /// Appends events to a stream atomically, skipping duplicates by dedupe key.
    ///
    /// - Parameters:
    ///   - stream: The stream id, for example `subscription-2000000123`. In Unicode Normalization
    ///     Form C: the database tells ids apart by their bytes, but this process's caches compare
    ///     them as Swift strings, by canonical equivalence, so two spellings of one id would share
    ///     a cached head (the HTTP API refuses user ids that are not NFC).
    ///   - events: The events to append, in order.
    ///   - expectedVersion: The version the stream must be at; checked only if some event is new, so a
    ///     retried append of the same events is a duplicate rather than a conflict.
    ///
    /// Work that must commit with the events (documents, other streams) goes through ``transaction(_:)``.
    func append(
        to stream: String,
        _ events: [NewEvent],
        expectedVersion: ExpectedVersion
    ) async throws -> AppendResult

    /// Runs `body` as one write transaction: the appends it makes through the transaction and the
    /// documents it writes commit together or not at all, so several facts can share one commit.
    ///
    /// If a concurrent writer wins a race, the whole body runs again: it must act only through the
    /// transaction it is given. An error it throws rolls everything back and is rethrown.
    func transaction<T: Sendable>(_ body: (any ProjectionTransaction) async throws -> T) async throws -> T

    /// The events of one stream with version at or above `from`, in version order, at most `limit`
    /// of them (nil: all; a limit below 0 reads none, as it does for every read of the port).
    func readStream(_ stream: String, from version: Int64, limit: Int?) async throws -> [RecordedEvent]

    /// Up to `limit` events of the global log after `cursor`, in log order, for catch-up readers.
    func readAll(after cursor: EventCursor, limit: Int) async throws -> EventPage

    /// `readAll` restricted to `streams`: up to `limit` of their events after `cursor`, in log order,
    /// with the same guarantee (an event that commits late is not skipped). Pages through the history
    /// of a few streams without reading them whole.
    func readAll(streams: [String], after cursor: EventCursor, limit: Int) async throws -> EventPage

    /// The history committed now, for `readAllForFolding`.
    func foldingSnapshot() async throws -> FoldSnapshot

    /// Up to `limit` events committed in `snapshot` with a position above `position`, in position
    /// order, with only the columns a projector reads.
    ///
    /// A fold (a replay) reads in position order, not `readAll`'s order: positions follow the order
    /// writers decided in. A writer that waited for another's locks inserts after that one committed,
    /// but in PostgreSQL it may hold an older transaction id (taken when it locked its first row), so
    /// `readAll` can list its events first, and a fold in that order would apply a later decision
    /// (such as a chain's transfer) before an earlier one.
    func readAllForFolding(in snapshot: FoldSnapshot, after position: Int64, limit: Int) async throws -> [FoldableEvent]

    /// The stream's current version, 0 for a stream that does not exist.
    func streamVersion(_ stream: String) async throws -> Int64

    /// The cursor a named projector last committed, or nil if it never did.
    func checkpoint(_ name: String) async throws -> EventCursor?

    /// Runs a projector's writes and moves its checkpoint from `expected` to `next` in one transaction.
    ///
    /// Throws `checkpoint_conflict` (and writes nothing) if the checkpoint is not at `expected`. As in
    /// ``transaction(_:)``, a lost race runs `writes` again from the start, so it must act only
    /// through the transaction it is given.
    func commitProjection(
        checkpoint name: String,
        expected: EventCursor?,
        next: EventCursor,
        _ writes: @Sendable (any ProjectionTransaction) async throws -> Void
    ) async throws

    /// Reads a read-model document outside any transaction.
    func document(model: String, key: String) async throws -> Data?

    /// A document and every document of `relatedModel` whose key is a key of the JSON object at `path`
    /// inside it, as one consistent read: an entitlement read needs a user and that user's chains.
    /// Nil if the document does not exist. A step of `path` names one member whatever it holds (a
    /// dot, a bracket, a quote); one holding U+0000, or a `relatedModel` holding it, is refused as
    /// `invalid_event` (see `MemberPath`).
    func document(model: String, key: String, relatedModel: String, keysAt path: [String]) async throws -> DocumentWithRelated?

    /// How many stored events carry a transaction id the database server has not reached, which
    /// hides them from every reader (the feed, `as_of`, replay): history restored with `pg_dump`
    /// into another PostgreSQL cluster. Always 0 for SQLite, which has no such ids.
    func eventsAheadOfServer() async throws -> Int

    /// How far the database server's clock stands from the one that stamps `recorded_at`, so `serve`
    /// can warn when instances sharing a database would stamp on clocks out of step (which puts the
    /// two ends of a transfer in the wrong order for `as_of`). Nil for SQLite: one process, one clock.
    func readServerClock() async throws -> ClockReading?

    /// Every read-model document, sorted by model, then key, each compared by its UTF-8 bytes
    /// whatever the database's collation (for `replay --check`).
    func projectionDocuments() async throws -> [ProjectionDocument]

    /// Replaces every read-model document at once: writes `documents` into a fresh table, then swaps it
    /// in within one transaction, so readers see the old read models or the new ones, never a mix.
    ///
    /// `foldedEvents` is how many events the documents were folded from. The swap holds off writers
    /// of read models and counts the events first; if there are more, the documents would miss
    /// facts, so nothing changes and it throws `EventStoreError.Code.rebuildOutdated`. A store whose
    /// swap waits for other transactions gives up after a bounded wait, changing nothing, with
    /// `EventStoreError.Code.rebuildBlocked` (PostgreSQL: three waits of 1 s). Documents naming one
    /// (model, key) twice, or holding U+0000 in a name, are refused as `invalid_event` before any of it.
    func replaceProjections(with documents: [ProjectionDocument], foldedEvents: Int) async throws

    /// How many events the store holds.
    func eventCount() async throws -> Int

    /// Keeps a refused webhook input in the bounded `rejections` table (the newest
    /// `rejectionLimit` rows stay), with the request id it was answered with.
    func recordRejection(source: String, code: String, detail: String, body: Data, requestID: String?) async throws

    /// The most recent rejections, newest first.
    func rejections(limit: Int) async throws -> [Rejection]

    /// Walks every stream's hash chain and reports each broken link, and each stream whose event at
    /// `checkpoint`'s version has another hash, or that ends before it (empty: none).
    func audit(against checkpoint: AuditCheckpoint, progress: (@Sendable (AuditProgress) -> Void)?) async throws -> AuditReport

    /// A wake-up signal raised after events are appended (by this process or, in PostgreSQL, any other).
    var changes: ChangeSignal { get }

    /// Where a batch of database work (ingest transactions, entitlement reads) should run
    /// (`Batcher`'s `executor`): the event loop of the store's connections, so each answer resumes
    /// the batch where it arrived; nil for the global pool.
    var batchExecutor: (any TaskExecutor)? { get }

    /// Runs background work (PostgreSQL's connection pool and change listener) until cancelled.
    func run() async throws

    /// Releases connections; the store cannot be used afterwards.
    func shutdown() async throws
}

extension EventStore {
    /// Walks every stream's hash chain and reports each broken link.
    public func audit(progress: (@Sendable (AuditProgress) -> Void)?) async throws -> AuditReport {
        try await audit(against: AuditCheckpoint(), progress: progress)
    }

    public var batchExecutor: (any TaskExecutor)? { nil }

    /// No transaction ids, none ahead: SQLite and any store that orders events by position alone.
    public func eventsAheadOfServer() async throws -> Int { 0 }

    /// No server clock: SQLite, and any store whose writers all share one clock.
    public func readServerClock() async throws -> ClockReading? { nil }

    /// The migrations the database lacks, waiting for a connection as long as any request would.
    public func pendingMigrations() async throws -> [Migration] {
        try await pendingMigrations(waitingAtMost: nil)
    }

    /// Appends events to a stream at whatever version it is.
    public func append(to stream: String, _ events: [NewEvent]) async throws -> AppendResult {
        try await append(to: stream, events, expectedVersion: .any)
    }

    /// Appends one event to a stream.
    public func append(
        to stream: String,
        _ event: NewEvent,
        expectedVersion: ExpectedVersion = .any
    ) async throws -> AppendedEvent {
        let result = try await append(to: stream, [event], expectedVersion: expectedVersion)
        guard let first = result.events.first else {
            throw EventStoreError(.databaseError, "append of one event returned no outcome")
        }
        return first
    }

    /// Reads the document, then each related one; adapters override it with one query.
    public func document(model: String, key: String, relatedModel: String, keysAt path: [String]) async throws -> DocumentWithRelated? {
        guard let data = try await document(model: model, key: key) else { return nil }
        var node = try? JSONSerialization.jsonObject(with: data)
        for step in path { node = (node as? [String: Any])?[step] }
        var related: [ProjectionDocument] = []
        for relatedKey in ((node as? [String: Any])?.keys).map(Array.init) ?? [] {
            if let relatedData = try await document(model: relatedModel, key: relatedKey) {
                related.append(ProjectionDocument(model: relatedModel, key: relatedKey, data: relatedData))
            }
        }
        return DocumentWithRelated(data: data, related: related.sorted { $0.key < $1.key })
    }

    /// The whole stream from its first event.
    public func readStream(_ stream: String) async throws -> [RecordedEvent] {
        try await readStream(stream, from: 1, limit: nil)
    }
}

/// How many refused webhook inputs the `rejections` table keeps.
public let rejectionLimit = 10_000
