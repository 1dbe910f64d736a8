import Foundation
import Logging
import PostgresNIO

/// Read-model access on the connection of an open PostgreSQL transaction.
struct PostgresProjectionTransaction: AppendingTransaction {
    let connection: PostgresConnection
    let logger: Logger
    /// Appends on this connection's open transaction; nil outside a transaction.
    var appendEvents: AppendInTransaction?
    /// Appends to several streams on this connection's open transaction; nil outside a transaction.
    var appendToStreams: AppendToStreamsInTransaction?
    /// Locks heads and looks up keys for appends to come, then locks and reads documents, in one
    /// statement on this connection's open transaction; nil outside a transaction.
    var lockForAppends: (@Sendable (_ streams: [String], _ keys: [String], _ documents: [DocumentKey]) async throws -> [Data?])?

    func document(model: String, key: String) async throws -> Data? {
        guard StoredName.isStorable(model: model, key: key) else { return nil }
        for try await data in try await connection.execute(ReadDocumentStatement(model: model, key: key), logger: logger) {
            return data
        }
        return nil
    }

    func putDocument(model: String, key: String, data: Data) async throws {
        try StoredName.require(model: model, key: key)
        for try await _ in try await connection.execute(PutDocumentStatement(model: model, key: key, data: data), logger: logger) {}
    }

    func lockAndRead(model: String, key: String) async throws -> Data? {
        try StoredName.require(model: model, key: key)
        for try await data in try await connection.execute(LockAndReadDocumentStatement(model: model, key: key), logger: logger) {
            return data
        }
        return nil
    }

    func lockAndRead(_ documents: [DocumentKey]) async throws -> [Data?] {
        try await lockAndRead(documents, beforeAppendingTo: [], dedupeKeys: [])
    }

    /// The lock statement of an ingest batch (`lockHeadsAndDocuments`), with or without heads to lock.
    func lockAndRead(_ documents: [DocumentKey], beforeAppendingTo streams: [String], dedupeKeys: [String]) async throws -> [Data?] {
        guard !documents.isEmpty || !streams.isEmpty || !dedupeKeys.isEmpty else { return [] }
        guard let lockForAppends else {
            // Outside a transaction a lock ends with its statement: each document is read on its own.
            var found: [Data?] = []
            for document in documents {
                found.append(try await lockAndRead(model: document.model, key: document.key))
            }
            return found
        }
        return try await lockForAppends(streams, dedupeKeys, documents)
    }

    func putDocuments(_ documents: [ProjectionDocument]) async throws {
        guard !documents.isEmpty else { return }
        for document in documents { try StoredName.require(model: document.model, key: document.key) }
        for try await _ in try await connection.execute(PutDocumentsStatement(documents: documents), logger: logger) {}
    }

    func lock(model: String, key: String) async throws {
        try StoredName.require(model: model, key: key)
        for try await _ in try await connection.execute(LockDocumentStatement(model: model, key: key), logger: logger) {}
    }

    func deleteDocument(model: String, key: String) async throws {
        guard StoredName.isStorable(model: model, key: key) else { return }
        var binds = PostgresBindings()
        binds.append(model)
        binds.append(key)
        _ = try await connection.query(PostgresQuery(unsafeSQL: PostgresSQL.deleteDocument, binds: binds), logger: logger)
    }
}
