import Foundation
import NIOCore
import PostgresNIO

/// Reads a document and the documents it names in one round trip; prepared once per connection, as
/// every entitlement read runs it for a user and the user's chains.
struct ReadDocumentWithRelatedStatement: PostgresPreparedStatement {
    typealias Row = (part: Int32, key: String, data: Data?)

    static let name = "subledger_read_document_with_related_v2"
    static let sql = PostgresSQL.documentWithRelated
    static let bindingDataTypes: [PostgresDataType] = [.text, .text, .textArray, .text]

    let model: String
    let key: String
    let path: [String]
    let relatedModel: String

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings.document(model: model, key: key)
        bindings.append(path)
        bindings.append(relatedModel)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row {
        let (part, key, data) = try row.decode((Int32, String, ByteBuffer?).self)
        return (part, key, data.map { Data(buffer: $0) })
    }
}
