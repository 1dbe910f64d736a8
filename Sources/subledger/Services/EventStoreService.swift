import EventStore
import ServiceLifecycle

/// Runs the event store's background work (connection pool, change listener) inside the `ServiceGroup`.
struct EventStoreService: Service {
    let store: any EventStore

    /// Runs until a graceful shutdown, or until the group cancels it because another service failed.
    /// It does not close the store: `serve` does that once the whole group has ended, so no request
    /// still being cancelled finds its connection closed.
    func run() async throws {
        try await cancelWhenGracefulShutdown {
            try await store.run()
        }
    }
}
