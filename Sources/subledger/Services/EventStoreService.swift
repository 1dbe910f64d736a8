import EventStore
import ServiceLifecycle

/// Runs the event store's background work (connection pool, change listener) inside the `ServiceGroup`.
struct EventStoreService: Service {
    let store: any EventStore

    func run() async throws {
        try await cancelWhenGracefulShutdown {
            try await store.run()
        }
        try await store.shutdown()
    }
}
