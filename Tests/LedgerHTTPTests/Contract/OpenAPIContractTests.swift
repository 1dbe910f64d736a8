import AppStoreTesting
import EventStore
import EventStoreTesting
import Foundation
import Hummingbird
import Ledger
import LedgerHTTP
import Prometheus
import Testing
import Yams

@Suite("docs/openapi.yaml matches the router")
struct OpenAPIContractTests {
    @Test func everyRouteInTheRouterIsInTheSpecAndEveryPathInTheSpecIsRouted() async throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let text = try String(contentsOf: root.appendingPathComponent("docs/openapi.yaml"), encoding: .utf8)
        let spec = try #require(try Yams.load(yaml: text) as? [String: Any])
        #expect(spec["openapi"] as? String == "3.1.0")
        let paths = try #require(spec["paths"] as? [String: [String: Any]])
        let documented = Set(paths.flatMap { path, operations in operations.keys.map { "\($0) \(path)" } })

        try await withFreshStore(.sqlite) { (fixture: StoreFixture) async throws in
            let pki = try APIHarness.pki.get()
            let verifier = try pki.makeVerifier(bundleId: APIHarness.bundleId, appAppleId: 1, environments: [.sandbox])
            let ledger = SubscriptionLedger(store: fixture.store, verifier: verifier, configuration: LedgerConfiguration())
            let router = LedgerApplication.router(store: fixture.store, ledger: ledger, keys: [], clock: SystemClock(),
                                                  metrics: PrometheusCollectorRegistry())
            let routed = Set(router.routes.map { "\($0.method.rawValue.lowercased()) \($0.path.description)" })
            #expect(routed.count == 12)
            #expect(routed.subtracting(documented).isEmpty, "routes missing from docs/openapi.yaml: \(routed.subtracting(documented).sorted())")
            #expect(documented.subtracting(routed).isEmpty, "documented but not routed: \(documented.subtracting(routed).sorted())")
        }
    }
}
