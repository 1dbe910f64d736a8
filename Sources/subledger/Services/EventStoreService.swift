import EventStore
import ServiceLifecycle

/// Runs the event store's background work (connection pool, change listener) inside the `ServiceGroup`.
struct EventStoreService: Service {
    let store: any EventStore

    /// Runs until a graceful shutdown, or until the group cancels it because another service failed
    /// (the HTTP server could not bind, a migration failed); the store is closed either way, so its
    /// connections never outlive it and the failure is what the process reports.
    func run() async throws {
        var failure: (any Error)?
        do {
            try await cancelWhenGracefulShutdown {
                try await store.run()
            }
        } catch {
            failure = error
        }
        try await store.shutdown()
        if let failure { throw failure }
    }
}
