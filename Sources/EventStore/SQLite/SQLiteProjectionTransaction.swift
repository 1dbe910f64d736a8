import Foundation
import SQLiteNIO

/// Read-model access on SQLite's writer connection inside an open transaction.
struct SQLiteProjectionTransaction: ProjectionTransaction {
    let connection: SQLiteConnection
    /// Appends in the open write transaction; nil on the reader, which cannot write.
    let appendEvents: (@Sendable (String, [NewEvent], ExpectedVersion) async throws -> AppendResult)?

    init(
        connection: SQLiteConnection,
        appendEvents: (@Sendable (String, [NewEvent], ExpectedVersion) async throws -> AppendResult)? = nil
    ) {
        self.connection = connection
        self.appendEvents = appendEvents
    }

    func append(to stream: String, _ events: [NewEvent], expectedVersion: ExpectedVersion) async throws -> AppendResult {
        guard let appendEvents else {
            throw EventStoreError(.databaseError, "appending needs the write transaction, not a read")
        }
        return try await appendEvents(stream, events, expectedVersion)
    }

    func document(model: String, key: String) async throws -> Data? {
        try await connection.query(SQLiteSQL.document, [.text(model), .text(key)])
            .first?.column("data")?.string.map { Data($0.utf8) }
    }

    func putDocument(model: String, key: String, data: Data) async throws {
        _ = try await connection.query(SQLiteSQL.putDocument, [.text(model), .text(key), .text(String(decoding: data, as: UTF8.self))])
    }

    /// SQLite runs one write transaction at a time, so every document is already exclusive.
    func lock(model: String, key: String) async throws {}

    func deleteDocument(model: String, key: String) async throws {
        _ = try await connection.query(SQLiteSQL.deleteDocument, [.text(model), .text(key)])
    }
}
