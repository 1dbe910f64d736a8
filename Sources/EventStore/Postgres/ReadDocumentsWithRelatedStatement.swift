import Foundation
import NIOCore
import PostgresNIO

/// Reads documents and the documents each names in one round trip; prepared once per connection, as
/// every batch of entitlement reads runs it for its users and their chains.
struct ReadDocumentsWithRelatedStatement: PostgresPreparedStatement {
    /// A named document with the keys and data of the documents it names that exist (aligned, nil
    /// when none does).
    typealias Row = (key: String, data: Data, relatedKeys: [String]?, relatedData: [ByteBuffer]?)

    static let name = "subledger_read_documents_with_related_v5"
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
        let (key, data, relatedKeys, relatedData) = try row.decode((String, ByteBuffer, [String]?, [ByteBuffer]?).self)
        return (key, Data(buffer: data), relatedKeys, relatedData)
    }
}
