import Foundation
import NIOCore
import PostgresNIO

/// Reads one read-model document; prepared once per connection, as every entitlement read and every
/// inline projection runs it.
struct ReadDocumentStatement: PostgresPreparedStatement {
    typealias Row = Data

    static let name = "subledger_read_document_v2"
    static let sql = PostgresSQL.document
    static let bindingDataTypes: [PostgresDataType] = [.text, .text]

    let model: String
    let key: String

    func makeBindings() throws -> PostgresBindings {
        .document(model: model, key: key)
    }

    func decodeRow(_ row: PostgresRow) throws -> Data {
        Data(buffer: try row.decode(ByteBuffer.self))
    }
}
