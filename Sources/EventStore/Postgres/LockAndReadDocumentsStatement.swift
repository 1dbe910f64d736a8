import Foundation
import NIOCore
import PostgresNIO

/// Locks several read-model documents in order and reads them in one round trip (migration 0006);
/// prepared once per connection, as every ingest runs it for the documents it will change.
struct LockAndReadDocumentsStatement: PostgresPreparedStatement {
    /// The 1-based index of a requested document and its data (nil if it does not exist).
    typealias Row = (index: Int32, data: Data?)

    static let name = "subledger_lock_and_read_documents_v1"
    static let sql = PostgresSQL.lockAndReadDocuments
    static let bindingDataTypes: [PostgresDataType] = [.textArray, .textArray]

    let documents: [DocumentKey]

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 2)
        bindings.append(documents.map(\.model))
        bindings.append(documents.map(\.key))
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row {
        let (index, data) = try row.decode((Int32, ByteBuffer?).self)
        return (index, data.map { Data(buffer: $0) })
    }
}
