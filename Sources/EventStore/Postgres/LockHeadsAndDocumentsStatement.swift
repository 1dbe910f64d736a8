import Foundation
import NIOCore
import PostgresNIO

/// The first round trip of a multi-stream append: lock the stream heads, find stored duplicates, then
/// lock and read the documents the caller will change.
struct LockHeadsAndDocumentsStatement: PostgresPreparedStatement {
    /// `kind` 0: the head of `stream` (`version`, `hash`). `kind` 1: the event stored with
    /// `dedupeKey` (`eventID`, `position`, at `version` of `stream`). `kind` 2: the document at
    /// 1-based index `version` of `documents` (`document`, nil if it does not exist).
    typealias Row = (
        kind: Int32, stream: String, version: Int64, hash: Data?, dedupeKey: String?, eventID: UUID?, position: Int64?,
        document: Data?
    )

    static let name = "subledger_lock_heads_and_documents_v2"
    static let sql = PostgresSQL.lockHeadsAndDocuments
    static let bindingDataTypes: [PostgresDataType] = [.textArray, .textArray, .textArray, .textArray]

    /// Distinct stream ids, sorted.
    let streams: [String]
    /// Dedupe keys.
    let keys: [String]
    /// Documents to lock and read, in lock order.
    let documents: [DocumentKey]

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 4)
        bindings.append(streams)
        bindings.append(keys)
        bindings.append(documents.map(\.model))
        bindings.append(documents.map(\.key))
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row {
        let (kind, stream, version, hash, key, id, position, document) = try row.decode(
            (Int32, String, Int64, ByteBuffer?, String?, UUID?, Int64?, ByteBuffer?).self
        )
        return (kind, stream, version, hash.map { Data(buffer: $0) }, key, id, position, document.map { Data(buffer: $0) })
    }
}
