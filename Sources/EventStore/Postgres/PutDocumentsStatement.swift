import Foundation
import PostgresNIO

/// Writes several read-model documents (insert or replace) in one round trip; prepared once per
/// connection, as every ingest writes the documents it changed together at the end.
struct PutDocumentsStatement: PostgresPreparedStatement {
    typealias Row = Void

    static let name = "subledger_put_documents_v1"
    static let sql = PostgresSQL.putDocuments
    static let bindingDataTypes: [PostgresDataType] = [.textArray, .textArray, .textArray]

    /// Distinct `(model, key)`s: one statement may not change a row twice.
    let documents: [ProjectionDocument]

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 3)
        bindings.append(documents.map(\.model))
        bindings.append(documents.map(\.key))
        bindings.append(documents.map { String(decoding: $0.data, as: UTF8.self) })
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws {}
}
