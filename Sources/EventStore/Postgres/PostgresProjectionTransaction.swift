import Foundation
import Logging
import PostgresNIO

/// Read-model access on the connection of an open PostgreSQL transaction.
struct PostgresProjectionTransaction: ProjectionTransaction {
    let connection: PostgresConnection
    let logger: Logger

    func document(model: String, key: String) async throws -> Data? {
        for try await data in try await connection.execute(ReadDocumentStatement(model: model, key: key), logger: logger) {
            return data
        }
        return nil
    }

    func putDocument(model: String, key: String, data: Data) async throws {
        for try await _ in try await connection.execute(PutDocumentStatement(model: model, key: key, data: data), logger: logger) {}
    }

    func lockAndRead(model: String, key: String) async throws -> Data? {
        for try await data in try await connection.execute(LockAndReadDocumentStatement(model: model, key: key), logger: logger) {
            return data
        }
        return nil
    }

    func lock(model: String, key: String) async throws {
        for try await _ in try await connection.execute(LockDocumentStatement(model: model, key: key), logger: logger) {}
    }

    func deleteDocument(model: String, key: String) async throws {
        var binds = PostgresBindings()
        binds.append(model)
        binds.append(key)
        _ = try await connection.query(PostgresQuery(unsafeSQL: PostgresSQL.deleteDocument, binds: binds), logger: logger)
    }
}
