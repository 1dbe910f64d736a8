import Logging
import PostgresNIO

/// Carries append hints between processes over one connection of its own: it LISTENs for other
/// processes' appends and raises `changes`, and sends one NOTIFY per burst of local appends.
///
/// A NOTIFY reaches every session of the database, so its payload is the sender's configured search
/// path, and a relay ignores hints from a deployment configured with another (side-by-side installs
/// in their own schemas, or the tests, which share one database). An empty payload, sent without a
/// configured search path or by versions before this one, wakes everyone, and a relay without one
/// hears every payload. The payload comes from the configuration, not a query: the relay's start
/// (connect, then LISTEN) stays one round trip.
///
/// The connection is deliberately not leased from the store's pool. When the store stops, the pool and
/// this relay are cancelled together; a query started on a pooled connection that the pool is closing at
/// that moment never completes (postgres-nio writes it to a channel that is already gone), which hung
/// shutdown. This relay closes its connection itself, only after its last query has answered.
struct PostgresChangeRelay: Sendable {
    let settings: PostgresSettings
    /// Raised when another process (or this one) NOTIFYs.
    let changes: ChangeSignal
    /// Raised by this process's appends.
    let localAppends: ChangeSignal
    let retryInterval: Duration
    let logger: Logger

    /// Relays until cancelled, reconnecting after `retryInterval` when the connection is lost.
    func run() async {
        while !Task.isCancelled {
            do {
                let connection = try await PostgresConnection.connect(configuration: try settings.directConnectionConfiguration(), id: 0, logger: logger)
                do {
                    try await relay(on: connection)
                } catch {
                    try? await connection.close()
                    throw error
                }
                try? await connection.close()
            } catch {
                if Task.isCancelled { return }
                logger.debug("change relay connection lost; readers fall back to polling", metadata: ["error": "\(error)"])
            }
            try? await Task.sleep(for: retryInterval)
        }
    }

    /// Listens and announces on `connection` until cancelled or the connection fails.
    private func relay(on connection: PostgresConnection) async throws {
        // The hints this deployment sends, and the only ones it hears (empty: all of them).
        let searchPath = settings.searchPath ?? ""
        try await withThrowingDiscardingTaskGroup { group in
            group.addTask {
                try await connection.listen(on: PostgresSQL.listenChannel) { notifications in
                    // Something may have been appended while nobody was listening.
                    changes.notify()
                    for try await notification in notifications
                    where searchPath.isEmpty || notification.payload.isEmpty || notification.payload == searchPath {
                        changes.notify()
                    }
                }
                // The notifications ended (cancelled, or the connection closed): end the announcer
                // too, so the relay stops or reconnects.
                throw CancellationError()
            }
            group.addTask {
                try await announce(on: connection, payload: searchPath)
            }
        }
    }

    /// One NOTIFY per burst of local appends, at most every 20 ms, rather than one per append
    /// transaction, which would serialise commits on PostgreSQL's notification queue lock.
    ///
    /// The first hint on each connection goes out at once if this process has appended anything: an
    /// append made before the connection was up (at start, or while it was lost) was never announced,
    /// and another process's reader that had caught up before it would wait a whole poll interval.
    private func announce(on connection: PostgresConnection, payload: String) async throws {
        var binds = PostgresBindings()
        binds.append(payload)
        var seen: UInt64 = 0
        while !Task.isCancelled {
            await localAppends.wait(after: seen, timeout: .seconds(3600))
            if Task.isCancelled || connection.isClosed { return }
            seen = localAppends.generation
            _ = try await connection.query(PostgresQuery(unsafeSQL: PostgresSQL.announce, binds: binds), logger: logger)
            try? await Task.sleep(for: .milliseconds(20))
        }
    }
}
