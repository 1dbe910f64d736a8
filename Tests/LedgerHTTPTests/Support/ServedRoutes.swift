import AppStoreTesting
import EventStore
import Hummingbird
import Ledger
import LedgerHTTP
import Prometheus

/// The routes of the server's router, built as `serve` builds it (with `/metrics`) and named as the
/// router names them (`/v1/users/{user_id}/grants`): what the OpenAPI spec and the HEAD test are
/// checked against.
enum ServedRoutes {
    /// Every route as `method path`, the method in lower case as the spec writes it.
    static func all(store: any EventStore) throws -> [(method: HTTPRequest.Method, path: String)] {
        let verifier = try APIHarness.pki.get().makeVerifier(bundleId: APIHarness.bundleId, appAppleId: 1, environments: [.sandbox])
        let ledger = SubscriptionLedger(store: store, verifier: verifier, configuration: LedgerConfiguration())
        let router = LedgerApplication.router(store: store, ledger: ledger, keys: [], clock: SystemClock(), metrics: PrometheusCollectorRegistry())
        return router.routes.map { ($0.method, $0.path.description) }
    }
}
