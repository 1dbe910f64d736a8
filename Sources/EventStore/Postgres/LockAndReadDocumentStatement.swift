import Foundation
import NIOCore
import PostgresNIO

/// Locks a read-model document and reads it in one round trip (migration 0004); prepared once per
/// connection, as every inline projection runs it for each document it changes.
struct LockAndReadDocumentStatement: PostgresPreparedStatement {
    typealias Row = Data?

    static let name = "subledger_lock_and_read_document_v1"
    static let sql = PostgresSQL.lockAndReadDocument
    static let bindingDataTypes: [PostgresDataType] = [.text, .text]

    let model: String
    let key: String

    func makeBindings() throws -> PostgresBindings {
        .document(model: model, key: key)
    }

    func decodeRow(_ row: PostgresRow) throws -> Data? {
        try row.decode(ByteBuffer?.self).map { Data(buffer: $0) }
    }
}
