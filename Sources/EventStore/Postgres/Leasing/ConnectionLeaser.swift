import Logging
import PostgresNIO

/// Leases pooled connections, but waits at most `acquireTimeout` for one.
///
/// postgres-nio queues a request for as long as it cannot open a connection (a minute before its
/// circuit breaker opens), so with PostgreSQL down a request would hang instead of failing. Here the
/// wait has a deadline and ends in `storageUnavailable` (503, so Apple retries). Only the wait is
/// bounded: once leased, the caller's work runs to its end, so a batch shared by many requests is
/// never cut off midway.
struct ConnectionLeaser: Sendable {
    let client: PostgresClient
    let acquireTimeout: Duration
    let logger: Logger
    /// Opened by the store's `run()`; no lease reaches the pool before (see `PoolStart`).
    let poolStart: PoolStart

    /// Runs `body` with a leased connection, in the caller's task, waiting for it at most
    /// `acquireTimeout`, or `wait` when that is shorter.
    func withConnection<T>(waitingAtMost wait: Duration? = nil, _ body: (PostgresConnection) async throws -> T) async throws -> T {
        let deadline: (wait: Duration, name: String) =
            if let wait, wait < acquireTimeout { (wait, "the caller's limit") } else { (acquireTimeout, "acquire_timeout") }
        return try await withThrowingTaskGroup(of: Void.self) { group in
            let handoff = LeaseHandoff<PostgresConnection>()
            group.addTask { [client, poolStart] in
                do {
                    // Part of the wait the deadline bounds: a store never run gets no connection.
                    try await poolStart.wait()
                    try await client.withConnection { connection in
                        // Refused when the deadline already passed: the connection goes straight back.
                        guard handoff.deliver(connection) else { return }
                        await handoff.waitForRelease()
                    }
                } catch let error as PSQLError {
                    handoff.fail(error)
                } catch {
                    // The pool's own errors, such as its circuit breaker opening after a minute of
                    // failed connection attempts: nothing leased, so the database is unavailable.
                    handoff.fail(EventStoreError(.storageUnavailable, "no PostgreSQL connection: \(error)"))
                }
            }
            group.addTask {
                // Cancelled (and so ended early) as soon as the connection arrives.
                try? await Task.sleep(for: deadline.wait)
                handoff.fail(EventStoreError(
                    .storageUnavailable,
                    "no PostgreSQL connection within \(deadline.wait) (\(deadline.name)): the database is down, unreachable or overloaded"
                ))
            }
            let connection: PostgresConnection
            do {
                connection = try await handoff.connection()
            } catch {
                group.cancelAll()
                if Task.isCancelled { throw CancellationError() }
                throw error
            }
            // Ends the deadline's sleep; the leasing task ignores this and waits for `release`.
            group.cancelAll()
            defer { handoff.release() }
            do {
                return try await body(connection)
            } catch {
                // postgres-nio keeps a statement whose preparation failed as failed for the rest of
                // its connection's life. One prepared before the schema existed (serve --no-migrate
                // before the migrate job) went on failing on that connection after the migration
                // until it idled out; closed here, the pool opens a fresh connection instead.
                if Self.failsWithTheSchema(error) {
                    logger.notice("closing a PostgreSQL connection whose statement did not fit the schema", metadata: ["error": "\(PostgresEventStore.unwrap(error))"])
                    try? await connection.close()
                }
                throw error
            }
        }
    }

    /// Whether `error` is PostgreSQL refusing a statement for the schema it found, as a statement's
    /// preparation fails: a table, column, function or other object that does not exist (42P01,
    /// 42703, 42883, 42704), a missing schema (3F000), or a prepared statement whose result no
    /// longer fits a changed table (0A000, "cached plan must not change result type"). Not every
    /// class 42 error: a permission (42501) is checked when a statement runs, never cached, and a
    /// missing grant must not make every request reconnect.
    static func failsWithTheSchema(_ error: any Error) -> Bool {
        switch error {
        case let error as PSQLError:
            guard let state = error.serverInfo?[.sqlState] else { return false }
            return ["42P01", "42703", "42883", "42704", "3F000", "0A000"].contains(state)
        case let error as PostgresTransactionError:
            return [error.closureError, error.beginError, error.commitError, error.rollbackError].contains { $0.map(failsWithTheSchema) ?? false }
        default:
            return false
        }
    }

    /// Runs `body` in a transaction on a leased connection.
    func withTransaction<T>(logger: Logger, _ body: (PostgresConnection) async throws -> T) async throws -> T {
        try await withConnection { connection in
            try await connection.withTransaction(logger: logger) { connection in try await body(connection) }
        }
    }
}
