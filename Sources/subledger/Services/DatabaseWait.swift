import EventStore
import Logging

/// Before a command opens its pool: waits until PostgreSQL accepts one direct connection, for at
/// most `acquire_timeout`. Settings the server refuses (a wrong password, a database that does not
/// exist) fail at once with its answer; a server not reachable yet is tried again quietly. Without
/// it the pool retried for the whole `acquire_timeout`, logging each failed attempt, before the
/// command could say why.
enum DatabaseWait {
    /// How long to wait between two attempts.
    static let retryInterval: Duration = .milliseconds(250)
    /// The longest one attempt may take (connecting, TLS, logging in): an address that swallows
    /// packets is tried again, with a fresh name lookup, and a shutdown is not held up by it for long.
    static let attemptTimeout: Duration = .seconds(5)

    /// Returns once a connection to `url` opened (at once for SQLite), or throws `Unreachable`.
    static func untilReachable(_ url: DatabaseURL, logger: Logger) async throws {
        guard case .postgres(let settings) = url else { return }
        let address = "\(settings.host):\(settings.port)"
        let clock = ContinuousClock()
        let deadline = clock.now + settings.acquireTimeout
        var waiting = false
        while true {
            let left = deadline - clock.now
            let attempt = min(max(left, .milliseconds(100)), attemptTimeout)
            guard let problem = await PostgresEventStore.probe(settings, connectTimeout: attempt) else {
                if waiting { logger.info("PostgreSQL accepted a connection", metadata: ["database": "\(address)"]) }
                return
            }
            if problem.isPermanent { throw Unreachable(address: address, problem: problem, waited: nil) }
            if clock.now >= deadline { throw Unreachable(address: address, problem: problem, waited: settings.acquireTimeout) }
            if !waiting {
                waiting = true
                logger.notice("waiting for PostgreSQL", metadata: [
                    "database": "\(address)", "problem": "\(problem)", "at_most": "\(settings.acquireTimeout) (acquire_timeout)",
                ])
            }
            try await Task.sleep(for: min(retryInterval, deadline - clock.now))
        }
    }

    /// No connection could be opened: what PostgreSQL or the network said, and for how long it was tried.
    struct Unreachable: Error, CustomStringConvertible {
        /// The `host:port` tried.
        var address: String
        /// What the last attempt found.
        var problem: PostgresConnectionProblem
        /// How long attempts were made; nil when the server refused the settings at the first one.
        var waited: Duration?

        /// The command's error line, with the code the API answers for the same state.
        var description: String {
            guard let waited else {
                return "storage_unavailable: cannot connect to PostgreSQL at \(address): \(problem); check database.url (SUBLEDGER_DATABASE_URL)"
            }
            return "storage_unavailable: no PostgreSQL connection at \(address) within \(waited) (acquire_timeout): \(problem)"
        }
    }
}
