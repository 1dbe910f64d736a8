import Foundation
import Logging
import NIOCore
import PostgresNIO

extension PostgresEventStore {
    public func readStream(_ stream: String, from version: Int64, limit: Int?) async throws -> [RecordedEvent] {
        // No stream id holds U+0000, which PostgreSQL refuses even to compare with.
        guard StoredName.isStorable(stream) else { return [] }
        var binds = PostgresBindings()
        binds.append(stream)
        binds.append(max(version, 1))
        binds.append(Int64(max(limit ?? Int(Int32.max), 0)))
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
        binds.append(streams.filter(StoredName.isStorable))
        binds.append(String(cursor.transaction))
        binds.append(cursor.position)
        binds.append(Int64(max(limit, 0)))
        let events = try await events(PostgresQuery(unsafeSQL: PostgresSQL.readStreams, binds: binds))
        return EventPage(events: events, next: events.last?.cursor ?? cursor)
    }

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
            // Replay reads pages of 2,000; a larger limit reserves no more than that up front.
            events.reserveCapacity(min(max(limit, 0), 2_000))
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
        guard StoredName.isStorable(stream) else { return 0 }
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

    public func eventCount() async throws -> Int {
        try await leased { connection in
            for try await count in try await connection.query(PostgresQuery(unsafeSQL: PostgresSQL.eventCount), logger: logger).decode(Int64.self) {
                return Int(count)
            }
            return 0
        }
    }
}
