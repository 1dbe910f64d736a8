import Foundation
import Logging
import NIOCore
import PostgresNIO

extension PostgresEventStore {
    /// Connections that fill a rebuilt read-model table at once.
    static let rebuildConnections = 3

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
        // A projector's appends race like any other write's, so its transaction runs again as theirs do.
        try await writeTransaction { connection, transaction in
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
            try await writes(transaction)
        }
    }

    public func document(model: String, key: String) async throws -> Data? {
        // No stored text holds U+0000, which PostgreSQL refuses even to compare with.
        guard StoredName.isStorable(model: model, key: key) else { return nil }
        return try await leased { connection in
            try await PostgresProjectionTransaction(connection: connection, logger: logger).document(model: model, key: key)
        }
    }

    /// Concurrent calls share batches (see `ReadBatcher`): one statement answers many users.
    public func document(model: String, key: String, relatedModel: String, keysAt path: [String]) async throws -> DocumentWithRelated? {
        try MemberPath.require(path, relatedModel: relatedModel)
        guard StoredName.isStorable(model: model, key: key) else { return nil }
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
    static func readRelated(
        _ reads: [RelatedDocumentRead],
        connections: ConnectionLeaser,
        logger: Logger
    ) async throws -> [RelatedDocumentRead: DocumentWithRelated] {
        var answers: [RelatedDocumentRead: DocumentWithRelated] = [:]
        let kinds = Dictionary(grouping: reads) { RelatedDocumentRead(model: $0.model, key: "", relatedModel: $0.relatedModel, path: $0.path) }
        do {
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
        } catch let refused as PSQLError where refused.sqlState == "22023" {
            // `jsonb_object_keys` met a value at the path that is not an object: what one stored
            // document holds, as a document that is not JSON is (22P02, 22P05: `invalid_event`).
            throw EventStoreError(.invalidEvent, "a stored document holds no JSON object at its path: \(refused.serverInfo?[.message] ?? "22023")")
        } catch {
            // Typed here, inside the batch, so the batcher can tell a refused statement from an outage.
            throw unwrap(error)
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
        try StoredName.require(replacing: documents)
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
}
