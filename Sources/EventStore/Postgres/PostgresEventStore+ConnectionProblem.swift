import Logging
import PostgresNIO

extension PostgresEventStore {
    /// Why a connection to `settings` cannot be opened, from one direct attempt; nil when it opens.
    ///
    /// The pool says only that no connection came within `acquire_timeout`, and its attempts' errors
    /// go to the log. A command that could not start says what the server answered (a wrong
    /// password, a database that does not exist) or why it could not be reached.
    public static func connectionProblem(_ settings: PostgresSettings) async -> String? {
        do {
            var configuration = try settings.directConnectionConfiguration()
            configuration.options.connectTimeout = .seconds(5)
            let quiet = Logger(label: "subledger.eventstore.postgres.diagnosis") { _ in SwiftLogNoOpLogHandler() }
            let connection = try await PostgresConnection.connect(configuration: configuration, id: 0, logger: quiet)
            try? await connection.close()
            return nil
        } catch let error as PSQLError {
            if let message = error.serverInfo?[.message] {
                return "PostgreSQL answered: \(message)" + (error.sqlState.map { " (\($0))" } ?? "")
            }
            return error.underlying.map { "\($0)" } ?? "\(error.code)"
        } catch {
            return "\(error)"
        }
    }
}
