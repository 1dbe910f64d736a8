import Foundation
import Logging
import NIOCore
import PostgresNIO

extension PostgresEventStore {
    public func audit(against checkpoint: AuditCheckpoint, progress: (@Sendable (AuditProgress) -> Void)?) async throws -> AuditReport {
        let total = try await eventCount()
        var auditor = ChainAuditor(totalEvents: total, progress: progress, against: checkpoint)
        var after = ("", Int64(0))
        while true {
            var binds = PostgresBindings()
            binds.append(after.0)
            binds.append(after.1)
            binds.append(Int64(1000))
            let page = try await leased { connection in
                var rows: [ChainRow] = []
                for try await row in try await connection.query(PostgresQuery(unsafeSQL: PostgresSQL.chainPage, binds: binds), logger: logger) {
                    let event = try Self.decodeEvent(row)
                    let columns = row.makeRandomAccess()
                    let headVersion = try columns[12].decode(Int64?.self)
                    let headHash = try columns[13].decode(ByteBuffer?.self)
                    let head = headVersion.map { StreamHead(version: $0, hash: headHash.map { Data(buffer: $0) } ?? Data()) }
                    rows.append(ChainRow(event: event, head: head))
                }
                return rows
            }
            guard let last = page.last else { break }
            for row in page { auditor.check(row) }
            after = (last.event.streamID, last.event.streamVersion)
        }
        let orphans = try await leased { connection in
            var heads: [(String, Int64)] = []
            for try await (stream, version) in try await connection.query(PostgresQuery(unsafeSQL: PostgresSQL.headsWithoutEvents), logger: logger)
                .decode((String, Int64).self) {
                heads.append((stream, version))
            }
            return heads
        }
        for (stream, version) in orphans { auditor.headWithoutEvents(stream: stream, version: version) }
        return auditor.finish()
    }
}
