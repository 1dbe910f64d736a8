/// An adapter's projection transaction that appends through a closure its store hands it: the store
/// owns the append logic, and a transaction opened only to read has none.
protocol AppendingTransaction: ProjectionTransaction {
    /// Appends inside the open transaction; nil on a read-only connection.
    var appendEvents: AppendInTransaction? { get }
}

/// An append to `stream` inside an already open transaction.
typealias AppendInTransaction = @Sendable (_ stream: String, _ events: [NewEvent], _ expected: ExpectedVersion) async throws -> AppendResult

extension AppendingTransaction {
    func append(to stream: String, _ events: [NewEvent], expectedVersion: ExpectedVersion) async throws -> AppendResult {
        guard let appendEvents else {
            throw EventStoreError(.databaseError, "appending needs the store's write transaction, not a read-only connection")
        }
        return try await appendEvents(stream, events, expectedVersion)
    }
}
