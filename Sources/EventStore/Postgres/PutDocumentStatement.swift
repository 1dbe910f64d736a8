import Foundation
import PostgresNIO

/// Writes one read-model document (insert or replace); prepared once per connection, as every inline
/// projection runs it.
struct PutDocumentStatement: PostgresPreparedStatement {
    typealias Row = Void

    static let name = "subledger_put_document_v2"
    static let sql = PostgresSQL.putDocument
    static let bindingDataTypes: [PostgresDataType] = [.text, .text, .text]

    let model: String
    let key: String
    let data: Data

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 3)
        bindings.append(model)
        bindings.append(key)
        bindings.append(String(decoding: data, as: UTF8.self))
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws {}
}
