/// An adapter's projection transaction that appends through closures its store hands it: the store
/// owns the append logic, and a transaction opened only to read has none.
protocol AppendingTransaction: ProjectionTransaction {
    /// Appends inside the open transaction; nil on a read-only connection.
    var appendEvents: AppendInTransaction? { get }
    /// Appends to several streams at once inside the open transaction; nil where appending one part
    /// at a time costs no more (SQLite) and on a read-only connection.
    var appendToStreams: AppendToStreamsInTransaction? { get }
}

/// An append to `stream` inside an already open transaction.
typealias AppendInTransaction = @Sendable (_ stream: String, _ events: [NewEvent], _ expected: ExpectedVersion) async throws -> AppendResult

/// A multi-stream append inside an already open transaction.
typealias AppendToStreamsInTransaction = @Sendable (_ appends: [StreamAppend]) async throws -> [AppendResult]

extension AppendingTransaction {
    var appendToStreams: AppendToStreamsInTransaction? { nil }

    func append(to stream: String, _ events: [NewEvent], expectedVersion: ExpectedVersion) async throws -> AppendResult {
        guard let appendEvents else {
            throw EventStoreError(.databaseError, "appending needs the store's write transaction, not a read-only connection")
        }
        return try await appendEvents(stream, events, expectedVersion)
    }

    func append(_ appends: [StreamAppend]) async throws -> [AppendResult] {
        if let appendToStreams { return try await appendToStreams(appends) }
        return try await appendEachPart(appends)
    }
}
