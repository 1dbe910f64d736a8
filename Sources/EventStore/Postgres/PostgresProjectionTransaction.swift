import Foundation
import Logging
import PostgresNIO

/// Read-model access on the connection of an open PostgreSQL transaction.
struct PostgresProjectionTransaction: ProjectionTransaction {
    let connection: PostgresConnection
    let logger: Logger

    func document(model: String, key: String) async throws -> Data? {
        var binds = PostgresBindings()
        binds.append(model)
        binds.append(key)
        for try await text in try await connection.query(
            PostgresQuery(unsafeSQL: PostgresSQL.document, binds: binds), logger: logger
        ).decode(String.self) {
            return Data(text.utf8)
        }
        return nil
    }

    func putDocument(model: String, key: String, data: Data) async throws {
        var binds = PostgresBindings()
        binds.append(model)
        binds.append(key)
        binds.append(String(decoding: data, as: UTF8.self))
        _ = try await connection.query(PostgresQuery(unsafeSQL: PostgresSQL.putDocument, binds: binds), logger: logger)
    }

    func lock(model: String, key: String) async throws {
        var binds = PostgresBindings()
        binds.append("\(model)/\(key)")
        _ = try await connection.query(PostgresQuery(unsafeSQL: PostgresSQL.lockDocument, binds: binds), logger: logger)
    }

    func deleteDocument(model: String, key: String) async throws {
        var binds = PostgresBindings()
        binds.append(model)
        binds.append(key)
        _ = try await connection.query(PostgresQuery(unsafeSQL: PostgresSQL.deleteDocument, binds: binds), logger: logger)
    }
}
