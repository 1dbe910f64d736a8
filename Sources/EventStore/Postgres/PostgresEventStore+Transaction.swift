import Foundation
import Logging
import NIOCore
import PostgresNIO
import Synchronization

extension PostgresEventStore {
    public func transaction<T: Sendable>(_ body: (any ProjectionTransaction) async throws -> T) async throws -> T {
        try await writeTransaction { _, transaction in try await body(transaction) }
    }

    /// Runs `body` as one write transaction, from the start again after a lost race; `body` gets the
    /// connection too, for statements of the store's own (a checkpoint's move).
    func writeTransaction<T: Sendable>(
        _ body: (PostgresConnection, any ProjectionTransaction) async throws -> T
    ) async throws -> T {
        for attempt in 1... {
            let appended = Mutex(false)
            // Appends remember their new heads before the commit; if it never comes, those heads
            // were never stored, and another process may store its own at the same versions.
            let touched = Mutex<Set<String>>([])
            do {
                let result = try await connections.withTransaction(logger: logger) { connection in
                    try await body(connection, self.projectionTransaction(connection) { result in
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
    func projectionTransaction(
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
        // A write's first statement: text PostgreSQL cannot hold is refused as the appends would
        // refuse it (as an invalid event), not as the database's error.
        try StoredName.require(streams: streams, dedupeKeys: keys, documents: documents)
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
    func storedEvents(_ connection: PostgresConnection, keys: [String]) async throws -> [String: AppendedEvent] {
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
}
