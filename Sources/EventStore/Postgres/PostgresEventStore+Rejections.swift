import Foundation
import Logging
import PostgresNIO

extension PostgresEventStore {
    public func recordRejection(source: String, code: String, detail: String, body: Data, requestID: String?) async throws {
        var binds = PostgresBindings()
        binds.append(Rejection.storedText(source))
        binds.append(Rejection.storedText(code))
        binds.append(Rejection.storedText(detail))
        binds.append(Rejection.storedBody(body))
        binds.append(requestID.map(Rejection.storedText))
        // The store's clock, as events' recorded_at (the column's default is the server's).
        binds.append(Timestamp.micros(now()))
        try await leased { connection in
            var inserted: Int64 = 0
            for try await id in try await connection.query(PostgresQuery(unsafeSQL: PostgresSQL.insertRejection, binds: binds), logger: logger).decode(Int64.self) {
                inserted = id
            }
            // Every insert past the limit trims, as SQLite's does: trimming only on every hundredth
            // id let a gap in the sequence (an insert rolled back, ids cached by another session)
            // skip a trim, and the table outgrow its bound. A trim that finds nothing to delete is
            // one probe of the primary key. The row is kept by then: a failed trim is logged, not
            // thrown, or the refusal would be answered as the store's failure and kept twice when
            // Apple sends it again.
            if inserted > Int64(rejectionLimit) {
                var trim = PostgresBindings()
                trim.append(inserted - Int64(rejectionLimit))
                do {
                    _ = try await connection.query(PostgresQuery(unsafeSQL: PostgresSQL.trimRejections, binds: trim), logger: logger)
                } catch {
                    logger.warning("could not trim the rejections table; the next refusal tries again", metadata: ["error": "\(Self.unwrap(error))"])
                }
            }
        }
    }

    public func rejections(limit: Int) async throws -> [Rejection] {
        var binds = PostgresBindings()
        binds.append(Int64(max(limit, 0)))
        return try await leased { connection in
            var rejections: [Rejection] = []
            for try await (micros, source, code, detail, body, requestID) in try await connection.query(
                PostgresQuery(unsafeSQL: PostgresSQL.recentRejections, binds: binds), logger: logger
            ).decode((Int64, String, String, String, String, String?).self) {
                rejections.append(Rejection(
                    receivedAt: Timestamp.date(micros: micros), source: source, code: code, detail: detail, body: body, requestID: requestID
                ))
            }
            return rejections
        }
    }
}
