import Foundation
import Logging

/// Opens the adapter a `DatabaseURL` names.
public enum EventStoreFactory {
    /// Opens a store; PostgreSQL needs `run()` running before it answers queries.
    public static func open(
        _ url: DatabaseURL,
        logger: Logger,
        now: @escaping @Sendable () -> Date = { Date() }
    ) async throws -> any EventStore {
        switch url {
        case .sqlite(let path):
            try await SQLiteEventStore.open(path: path, logger: logger, now: now)
        case .postgres(let settings):
            PostgresEventStore(settings: settings, logger: logger, now: now)
        }
    }
}
