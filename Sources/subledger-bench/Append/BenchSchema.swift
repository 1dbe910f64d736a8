import EventStore
import Logging
import PostgresNIO

/// Creates a fresh PostgreSQL schema so each benchmark run starts from empty tables.
enum BenchSchema {
    static func create(_ schema: String, settings: PostgresSettings, logger: Logger) async throws {
        let client = PostgresClient(
            configuration: .init(host: settings.host, port: settings.port, username: settings.username,
                                 password: settings.password, database: settings.database, tls: .disable),
            backgroundLogger: logger
        )
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            _ = try await client.withConnection { try await $0.simpleQuery("CREATE SCHEMA \(schema)").get() }
        }
    }
}
