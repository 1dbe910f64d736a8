import ArgumentParser
import EventStore
import Foundation
import LedgerHTTP
import Logging
import PostgresNIO

/// The PostgreSQL database a benchmark runs in: a fresh schema per run, so each starts from empty tables.
enum BenchSchema {
    /// Settings for a new schema named `<prefix>_<time>` on the server `url` names
    /// (default `$SUBLEDGER_TEST_POSTGRES_URL`, which scripts/bench sets).
    static func fresh(url: String?, prefix: String, poolSize: Int, logger: Logger) async throws -> (PostgresSettings, String) {
        guard let text = url ?? ProcessInfo.processInfo.environment["SUBLEDGER_TEST_POSTGRES_URL"],
              case .postgres(var settings) = try DatabaseURL(text) else {
            throw ValidationError("pass --database-url postgres://... (scripts/bench starts a throwaway server)")
        }
        let schema = "\(prefix)_\(Int(Date().timeIntervalSince1970))"
        try await create(schema, settings: settings, logger: logger)
        settings.searchPath = schema
        settings.poolSize = poolSize
        return (settings, schema)
    }

    /// A logger that only reports errors, so benchmark output stays readable.
    static var quietLogger: Logger {
        // The service's handler, so the HTTP benchmark pays what `serve` pays per request.
        var logger = Logger(label: "subledger.bench", factory: { LineLogHandler(label: $0) })
        logger.logLevel = .error
        return logger
    }

    static func create(_ schema: String, settings: PostgresSettings, logger: Logger) async throws {
        let client = PostgresClient(
            configuration: .init(host: settings.host, port: settings.port, username: settings.username,
                                 password: settings.password, database: settings.database, tls: .disable),
            backgroundLogger: logger
        )
        try await client.whileRunning {
            _ = try await client.query(PostgresQuery(unsafeSQL: "CREATE SCHEMA \(schema)"), logger: logger)
        }
    }
}
