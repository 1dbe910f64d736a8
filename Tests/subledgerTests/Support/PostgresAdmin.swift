import EventStore
import Foundation
import Logging
import PostgresNIO

/// Creates throwaway databases on the test server, and runs SQL on them as an operator would.
enum PostgresAdmin {
    static func createDatabase(_ name: String, url: String) async throws {
        try await execute("CREATE DATABASE \(name)", url: url)
    }

    /// `url` naming `database` instead of its own (whatever database the test URL names).
    static func url(_ url: String, database: String) throws -> String {
        guard var components = URLComponents(string: url) else { throw ProcessFailure(message: "not a URL: \(url)") }
        components.path = "/\(database)"
        guard let named = components.string else { throw ProcessFailure(message: "no URL for database \(database) from \(url)") }
        return named
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
