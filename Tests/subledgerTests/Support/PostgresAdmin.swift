import EventStore
import Logging
import PostgresNIO

/// Creates throwaway databases on the test server, and runs SQL on them as an operator would.
enum PostgresAdmin {
    static func createDatabase(_ name: String, url: String) async throws {
        try await execute("CREATE DATABASE \(name)", url: url)
    }

    /// Runs one statement on the database `url` names.
    static func execute(_ sql: String, url: String) async throws {
        let settings = try PostgresSettings(url: url)
        let client = PostgresClient(
            configuration: .init(host: settings.host, port: settings.port, username: settings.username,
                                 password: settings.password, database: settings.database, tls: .disable),
            backgroundLogger: Logger(label: "subledger.tests")
        )
        try await client.whileRunning {
            _ = try await client.query(PostgresQuery(unsafeSQL: sql))
        }
    }
}
