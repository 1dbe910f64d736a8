import Foundation
import Ledger
import Testing

/// `entitlements.sandbox_grants: false`: a sandbox subscription is listed with its own status, and
/// grants nothing, so it adds no entitlement (rather than one marked `expired` that never expired).
@Suite("Sandbox subscriptions when sandbox purchases grant nothing")
struct SandboxGrantsTests {
    static let catalog = ProductCatalog(products: ["pro.monthly": .init(entitlements: ["pro"])])
    static let day: Int64 = 86_400_000

    static func chain(_ id: String, environment: String) -> ChainState {
        var chain = ChainState(originalTransactionId: id)
        chain.apply(TransactionObservation(
            transactionId: id, originalTransactionId: id, productId: "pro.monthly", type: "Auto-Renewable Subscription",
            purchaseDate: 0, expiresDate: 30 * day, environment: environment, assertedAt: 0
        ), eventID: "e-\(id)")
        return chain
    }

    @Test func aSandboxSubscriptionIsListedButAddsNoEntitlementAndAProductionOneStillGrants() {
        let evaluator = EntitlementEvaluator(catalog: Self.catalog, sandboxGrants: false)
        let at = Date(timeIntervalSince1970: 86_400)
        let sandboxOnly = evaluator.evaluate(user: UserState(userId: "u1"), chains: [Self.chain("1", environment: "Sandbox")], at: at, position: 1)
        #expect(sandboxOnly.subscriptions.map(\.status) == [.active])
        #expect(sandboxOnly.entitlements.isEmpty)

        let both = evaluator.evaluate(
            user: UserState(userId: "u1"),
            chains: [Self.chain("1", environment: "Sandbox"), Self.chain("2", environment: "Production")], at: at, position: 2
        )
        #expect(both.entitlements.map(\.id) == ["pro"])
        #expect(both.entitlements.first?.active == true)
        #expect(both.entitlements.first?.originalTransactionId == "2")

        // The default grants sandbox purchases (App Review buys in the sandbox).
        let granting = EntitlementEvaluator(catalog: Self.catalog)
        let reviewed = granting.evaluate(user: UserState(userId: "u1"), chains: [Self.chain("1", environment: "Sandbox")], at: at, position: 1)
        #expect(reviewed.entitlements.first?.active == true)
        #expect(reviewed.entitlements.first?.status == "active")
    }
}
