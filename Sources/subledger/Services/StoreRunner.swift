import EventStore
import Logging

/// Opens the store a URL names, keeps its background work running around `body`, and closes it.
enum StoreRunner {
    static func withStore<T: Sendable>(
        _ url: DatabaseURL,
        logger: Logger,
        _ body: @Sendable (any EventStore) async throws -> T
    ) async throws -> T {
        let store = try await EventStoreFactory.open(url, logger: logger)
        let result = try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask {
                try await store.run()
                return nil
            }
            defer { group.cancelAll() }
            return try await body(store)
        }
        try await store.shutdown()
        return result
    }
}
