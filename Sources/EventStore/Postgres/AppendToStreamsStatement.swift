import Foundation
import NIOCore
import PostgresNIO

/// Moves or creates every head and inserts every event of a multi-stream append: its only round trip
/// when the transaction already holds the heads (see `TransactionHeads`), else its second.
struct AppendToStreamsStatement: PostgresPreparedStatement {
    typealias Row = (eventID: UUID, position: Int64)

    static let name = "subledger_append_to_streams_v2"
    static let sql = PostgresSQL.appendToStreams
    static let bindingDataTypes: [PostgresDataType] = [
        .textArray, .int8Array, .byteaArray, .textArray, .int8Array, .byteaArray,
        .uuidArray, .textArray, .int8Array, .textArray, .int4Array, .textArray, .textArray, .int8Array, .textArray, .byteaArray,
    ]

    /// Heads of streams that already exist, after the append.
    let moved: [(stream: String, head: StreamHead)]
    /// Heads of streams this append creates.
    let created: [(stream: String, head: StreamHead)]
    /// Every row to insert, with its stream.
    let rows: [(stream: String, row: AppendPlan.Row)]

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 16)
        for heads in [moved, created] {
            bindings.append(heads.map(\.stream))
            bindings.append(heads.map(\.head.version))
            bindings.append(heads.map { ByteBuffer(data: $0.head.hash) })
        }
        bindings.append(rows.map(\.row.eventID))
        bindings.append(rows.map(\.stream))
        bindings.append(rows.map(\.row.streamVersion))
        bindings.append(rows.map(\.row.type))
        bindings.append(rows.map { Int32($0.row.schemaVersion) })
        bindings.append(rows.map { String(decoding: $0.row.data, as: UTF8.self) })
        bindings.append(rows.map { String(decoding: $0.row.metadata, as: UTF8.self) })
        bindings.append(rows.map(\.row.recordedAtMicros))
        bindings.append(rows.map { $0.row.dedupeKey ?? "" })
        bindings.append(rows.map { ByteBuffer(data: $0.row.hash) })
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row {
        try row.decode((UUID, Int64).self)
    }
}
