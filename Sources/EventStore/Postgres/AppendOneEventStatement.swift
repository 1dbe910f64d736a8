import Foundation
import NIOCore
import PostgresNIO

/// The append of one event (every webhook and client submission) as a prepared statement: the server
/// parses and plans it once per connection instead of on every append, which was much of
/// PostgreSQL's work per append. Same compare-and-set on the stream head as `PostgresSQL.appendEvents`,
/// and the dedupe check in the same statement.
struct AppendOneEventStatement: PostgresPreparedStatement {
    /// The written event, or (`isDuplicate`) the stored one with the same dedupe key and the version
    /// of the stream appended to.
    typealias Row = (isDuplicate: Bool, eventID: UUID, position: Int64, streamID: String, streamVersion: Int64, headVersion: Int64)

    static let name = "subledger_append_one_event_v2"

    static let sql = PostgresSQL.appendOneEvent

    static let bindingDataTypes: [PostgresDataType] = [
        .text, .int8, .bytea, .int8, .uuid, .int8, .text, .int4, .text, .text, .int8, .text, .bytea,
    ]

    let stream: String
    let newHead: StreamHead
    let expectedHeadVersion: Int64
    let row: AppendPlan.Row

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 13)
        bindings.append(stream)
        bindings.append(newHead.version)
        bindings.append(ByteBuffer(data: newHead.hash))
        bindings.append(expectedHeadVersion)
        bindings.append(row.eventID)
        bindings.append(row.streamVersion)
        bindings.append(row.type)
        bindings.append(Int32(row.schemaVersion))
        bindings.append(String(decoding: row.data, as: UTF8.self))
        bindings.append(String(decoding: row.metadata, as: UTF8.self))
        bindings.append(row.recordedAtMicros)
        if let key = row.dedupeKey {
            bindings.append(key)
        } else {
            bindings.appendNull()
        }
        bindings.append(ByteBuffer(data: row.hash))
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row {
        try row.decode((Bool, UUID, Int64, String, Int64, Int64).self)
    }
}
