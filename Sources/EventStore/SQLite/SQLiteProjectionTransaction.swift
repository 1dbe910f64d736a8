import Foundation
import SQLiteNIO

/// Read-model access on SQLite's writer connection inside an open transaction.
struct SQLiteProjectionTransaction: AppendingTransaction {
    let connection: SQLiteConnection
    /// Appends in the open write transaction; nil on the reader, which cannot write.
    var appendEvents: AppendInTransaction?

    func document(model: String, key: String) async throws -> Data? {
        guard StoredName.isStorable(model: model, key: key) else { return nil }
        return try await connection.query(SQLiteSQL.document, [.text(model), .text(key)])
            .first?.column("data")?.string.map { Data($0.utf8) }
    }

    func putDocument(model: String, key: String, data: Data) async throws {
        try StoredName.require(model: model, key: key)
        _ = try await connection.query(SQLiteSQL.putDocument, [.text(model), .text(key), .text(String(decoding: data, as: UTF8.self))])
    }

    /// SQLite runs one write transaction at a time, so every document is already exclusive; a name
    /// no document can have is refused, as PostgreSQL's lock refuses it.
    func lock(model: String, key: String) async throws {
        try StoredName.require(model: model, key: key)
    }

    func deleteDocument(model: String, key: String) async throws {
        guard StoredName.isStorable(model: model, key: key) else { return }
        _ = try await connection.query(SQLiteSQL.deleteDocument, [.text(model), .text(key)])
    }
}
