import Foundation
import NIOCore
import PostgresNIO

/// Reads documents and the documents each names in one round trip; prepared once per connection, as
/// every batch of entitlement reads runs it for its users and their chains.
struct ReadDocumentsWithRelatedStatement: PostgresPreparedStatement {
    /// `part` 0 is a named document (`owner == key`), 1 a document it names (`data` nil if missing).
    typealias Row = (part: Int32, owner: String, key: String, data: Data?)

    static let name = "subledger_read_documents_with_related_v4"
    static let sql = PostgresSQL.documentsWithRelated
    static let bindingDataTypes: [PostgresDataType] = [.text, .textArray, .textArray, .text]

    let model: String
    let keys: [String]
    let path: [String]
    let relatedModel: String

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 4)
        bindings.append(model)
        bindings.append(keys)
        bindings.append(path)
        bindings.append(relatedModel)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row {
        let (part, owner, key, data) = try row.decode((Int32, String, String, ByteBuffer?).self)
        return (part, owner, key, data.map { Data(buffer: $0) })
    }
}
