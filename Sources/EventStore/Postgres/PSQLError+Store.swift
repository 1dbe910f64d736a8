import PostgresNIO

extension PSQLError {
    /// The server's SQLSTATE, if the server sent one.
    var sqlState: String? { serverInfo?[.sqlState] }

    /// A race the append loop resolves by trying again: a concurrent duplicate or a serialisation failure.
    var isRetryableWriteRace: Bool {
        switch sqlState {
        case "23505": // unique_violation: a duplicate committed between our read and our write
            true
        case "40001", "40P01": // serialization_failure, deadlock_detected
            true
        default:
            false
        }
    }

    /// The typed store error for this failure: unavailable for connection trouble, a database error otherwise.
    var storeError: EventStoreError {
        if sqlState == "23505", serverInfo?[.constraintName] == "events_event_id_key" {
            return EventStoreError(.invalidEvent, "an event with this event id is already stored; give each event a new id or a dedupe key")
        }
        if sqlState == "23514" {
            return EventStoreError(.invalidEvent, "event data and metadata must be JSON objects (\(serverInfo?[.constraintName] ?? "check"))")
        }
        if sqlState == "22P02" || sqlState == "22P05" {
            return EventStoreError(.invalidEvent, "event data or metadata is not valid JSON: \(serverInfo?[.message] ?? "")")
        }
        if isRetryableWriteRace {
            return EventStoreError(.writeRace, "a concurrent write won: \(serverInfo?[.message] ?? "conflict")")
        }
        if let state = sqlState {
            let message = serverInfo?[.message] ?? "database error"
            // 08: connection exception, 53: insufficient resources, 57P: operator intervention.
            if state.hasPrefix("08") || state.hasPrefix("53") || state.hasPrefix("57P") {
                return EventStoreError(.storageUnavailable, "PostgreSQL is unavailable: \(message) (\(state))")
            }
            return EventStoreError(.databaseError, "PostgreSQL refused the statement: \(message) (\(state))")
        }
        return EventStoreError(.storageUnavailable, "PostgreSQL is unavailable: \(code)")
    }
}
