import EventStore
import Hummingbird

/// Liveness and readiness probes for load balancers and orchestrators.
///
/// `/health` answers while the process serves HTTP at all; `/ready` also checks that the event store
/// answers and has every migration this build needs, so traffic is withheld while the database is
/// down or its schema is behind.
public struct HealthRoutes: Sendable {
    /// How long `/ready` waits for a pooled connection before answering 503: well inside the
    /// usual probe timeouts (Kubernetes waits 1 s by default), where a request that needs the
    /// database waits the whole `acquire_timeout`. A healthy pool hands one over in milliseconds.
    public static let readinessWait: Duration = .milliseconds(500)

    let store: any EventStore

    /// Creates the probes for a store.
    public init(store: any EventStore) {
        self.store = store
    }

    /// Adds `GET /health` and `GET /ready` to a router.
    public func register<Context: RequestContext>(on router: Router<Context>) {
        router.get("health") { _, _ in
            ProbeStatus(status: "ok", database: nil)
        }
        router.get("ready") { _, _ in
            let pending: [Migration]
            do {
                pending = try await store.pendingMigrations(waitingAtMost: Self.readinessWait)
            } catch {
                throw Problem.storageUnavailable("the \(store.dialect.rawValue) database does not answer: \(error)")
            }
            // Started with migrations off (a separate migrate job): no traffic until the schema is there.
            guard pending.isEmpty else { throw Problem.schemaBehind(pending, dialect: store.dialect) }
            return ProbeStatus(status: "ready", database: store.dialect.rawValue)
        }
    }
}
