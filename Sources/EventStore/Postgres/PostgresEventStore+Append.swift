import Foundation
import Logging
import PostgresNIO

extension PostgresEventStore {
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
    static func rethrowUnlessLostRace(_ error: any Error) throws {
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
    static func backOff(after attempt: Int, _ what: String) async throws {
        if attempt >= 100 {
            throw EventStoreError(.storageUnavailable, "\(what) lost 100 races in a row; try again")
        }
        try await Task.sleep(for: .microseconds(Int.random(in: 0...(200 * min(attempt, 20)))))
    }

    /// An append inside an open transaction. A lost race cannot be retried alone (the transaction is
    /// the unit), so it throws `RetryAppend` and `transaction` runs its body again.
    func appendInTransaction(
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
        // Nothing to append answers with the stream's version, which only a read knows.
        let optimistic = optimistic && !prepared.isEmpty
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
}
