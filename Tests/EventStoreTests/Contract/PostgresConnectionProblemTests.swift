import EventStore
import EventStoreTesting
import Foundation
import Testing

/// A command that gets no connection says why: what the server answered, or why it was not reached,
/// rather than only that none came within `acquire_timeout`.
@Suite("PostgreSQL: why a connection cannot be opened")
struct PostgresConnectionProblemTests {
    @Test(.enabled(if: TestDatabases.dialects.contains(.postgres)))
    func aDirectAttemptNamesTheServersAnswerOrTheNetworksError() async throws {
        guard let url = TestDatabases.postgresURL else { throw PostgreSQLRequired() }
        let settings = try PostgresSettings(url: url)
        #expect(await PostgresEventStore.connectionProblem(settings) == nil)

        var unknownDatabase = settings
        unknownDatabase.database = "subledger_no_such_database"
        let answered = try #require(await PostgresEventStore.connectionProblem(unknownDatabase))
        #expect(answered == #"PostgreSQL answered: database "subledger_no_such_database" does not exist (3D000)"#)

        var closedPort = settings
        closedPort.host = "127.0.0.1"
        closedPort.port = 1
        let unreachable = try #require(await PostgresEventStore.connectionProblem(closedPort))
        #expect(unreachable.contains("Connection refused"), "\(unreachable)")
    }
}
