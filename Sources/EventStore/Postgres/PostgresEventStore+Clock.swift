import Foundation
import Logging
import PostgresNIO

extension PostgresEventStore {
    public func readServerClock() async throws -> ClockReading? {
        try await leased { connection in
            let before = Timestamp.micros(now())
            var server: Int64?
            for try await micros in try await connection.query(PostgresQuery(unsafeSQL: PostgresSQL.serverClock), logger: logger).decode(Int64.self) {
                server = micros
            }
            let after = Timestamp.micros(now())
            guard let server else { return nil }
            let middle = before + (after - before) / 2
            return ClockReading(aheadOfServerMicros: middle - server, uncertaintyMicros: max(0, (after - before) / 2))
        }
    }

    public func eventsAheadOfServer() async throws -> Int {
        try await leased { connection in
            for try await count in try await connection.query(PostgresQuery(unsafeSQL: PostgresSQL.eventsAheadOfServer), logger: logger).decode(Int64.self) {
                return Int(count)
            }
            return 0
        }
    }
}
