import Foundation
import NIOCore
import PostgresNIO

/// The first round trip of a multi-stream append: lock the stream heads, find stored duplicates.
struct LockHeadsAndFindDuplicatesStatement: PostgresPreparedStatement {
    /// `kind` 0: the head of `stream` (`version`, `hash`). `kind` 1: the event stored with
    /// `dedupeKey` (`eventID`, `position`, at `version` of `stream`).
    typealias Row = (kind: Int32, stream: String, version: Int64, hash: Data?, dedupeKey: String?, eventID: UUID?, position: Int64?)

    static let name = "subledger_lock_heads_and_find_duplicates_v2"
    static let sql = PostgresSQL.lockHeadsAndFindDuplicates
    static let bindingDataTypes: [PostgresDataType] = [.textArray, .textArray]

    /// Distinct stream ids.
    let streams: [String]
    /// Dedupe keys.
    let keys: [String]

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 2)
        bindings.append(streams)
        bindings.append(keys)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row {
        let (kind, stream, version, hash, key, id, position) = try row.decode(
            (Int32, String, Int64, ByteBuffer?, String?, UUID?, Int64?).self
        )
        return (kind, stream, version, hash.map { Data(buffer: $0) }, key, id, position)
    }
}
