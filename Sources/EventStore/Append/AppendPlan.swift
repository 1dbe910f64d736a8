import Foundation

/// What one append attempt will write, decided without I/O from the stream head and the duplicates
/// already stored. Both adapters execute a plan; keeping the decision here keeps their semantics equal.
struct AppendPlan: Sendable {
    /// A row to insert, with its hash already chained.
    struct Row: Sendable {
        var eventID: UUID
        var streamVersion: Int64
        var type: String
        var schemaVersion: Int
        var data: Data
        var metadata: Data
        var recordedAtMicros: Int64
        var dedupeKey: String?
        var hash: Data
    }

    /// How each requested event ends up.
    enum Outcome: Sendable {
        /// It is already stored (found by dedupe key).
        case existing(AppendedEvent)
        /// It is written as `rows[index]`.
        case new(Int)
        /// It repeats the dedupe key of an earlier event in the same batch, `rows[index]`.
        case sameAs(Int)
    }

    var stream: String
    var rows: [Row]
    var outcomes: [Outcome]
    var head: StreamHead
    var newHead: StreamHead

    /// Plans an append, or throws `version_conflict` if new events exist and the version does not match.
    init(
        stream: String,
        events: [PreparedEvent],
        expected: ExpectedVersion,
        head: StreamHead,
        duplicates: [String: AppendedEvent],
        recordedAtMicros: Int64
    ) throws(EventStoreError) {
        self.stream = stream
        self.head = head
        var rows: [Row] = []
        var outcomes: [Outcome] = []
        var keysInBatch: [String: Int] = [:]
        var version = head.version
        var previousHash = head.hash
        for prepared in events {
            if let key = prepared.event.dedupeKey {
                if let existing = duplicates[key] {
                    outcomes.append(.existing(existing))
                    continue
                }
                if let index = keysInBatch[key] {
                    outcomes.append(.sameAs(index))
                    continue
                }
            }
            version += 1
            let fields = EventHasher.Fields(
                eventID: prepared.event.eventID,
                streamID: stream,
                streamVersion: version,
                type: prepared.event.type,
                schemaVersion: prepared.event.schemaVersion,
                recordedAtMicros: recordedAtMicros,
                dedupeKey: prepared.event.dedupeKey,
                data: prepared.event.data,
                metadata: prepared.event.metadata
            )
            let hash = EventHasher.hash(previous: previousHash, fields)
            previousHash = hash
            if let key = prepared.event.dedupeKey { keysInBatch[key] = rows.count }
            outcomes.append(.new(rows.count))
            rows.append(
                Row(
                    eventID: prepared.event.eventID,
                    streamVersion: version,
                    type: prepared.event.type,
                    schemaVersion: prepared.event.schemaVersion,
                    data: prepared.event.data,
                    metadata: prepared.event.metadata,
                    recordedAtMicros: recordedAtMicros,
                    dedupeKey: prepared.event.dedupeKey,
                    hash: hash
                )
            )
        }
        if !rows.isEmpty && !expected.isSatisfied(byCurrent: head.version) {
            throw EventStoreError(
                .versionConflict,
                "stream \(stream) is at version \(head.version), expected \(expected)"
            )
        }
        self.rows = rows
        self.outcomes = outcomes
        self.newHead = StreamHead(version: version, hash: previousHash)
    }

    /// The result once the rows are stored at `positions` (same order as `rows`).
    func result(positions: [Int64]) -> AppendResult {
        let appended = outcomes.map { outcome -> AppendedEvent in
            switch outcome {
            case .existing(let event):
                return event
            case .new(let index), .sameAs(let index):
                let row = rows[index]
                let isDuplicate: Bool = if case .sameAs = outcome { true } else { false }
                return AppendedEvent(
                    eventID: row.eventID,
                    position: positions[index],
                    streamID: stream,
                    streamVersion: row.streamVersion,
                    isDuplicate: isDuplicate,
                    recordedAt: isDuplicate ? nil : Timestamp.date(micros: row.recordedAtMicros)
                )
            }
        }
        return AppendResult(events: appended, streamVersion: rows.isEmpty ? head.version : newHead.version)
    }
}
