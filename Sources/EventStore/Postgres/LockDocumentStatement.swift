import PostgresNIO

/// Takes the transaction-scoped advisory lock named by a document's model and key; prepared once per
/// connection, as every inline projection runs it before reading a document it will change.
struct LockDocumentStatement: PostgresPreparedStatement {
    typealias Row = Void

    static let name = "subledger_lock_document_v1"
    static let sql = PostgresSQL.lockDocument
    static let bindingDataTypes: [PostgresDataType] = [.text]

    let model: String
    let key: String

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 1)
        bindings.append("\(model)/\(key)")
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws {}
}
