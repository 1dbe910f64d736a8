import Foundation
import Ledger
import Testing

/// A chain's app is the governing transaction's bundle id, or another transaction's when a source
/// did not name it (a receipt whose verifyReceipt answer left it out), so a renewal known only
/// from such a receipt does not make the chain's app unknown.
struct ChainBundleIdTests {
    private static func observation(_ id: String, bundleId: String?, purchased: Int64) -> TransactionObservation {
        TransactionObservation(
            transactionId: id, originalTransactionId: "7", productId: "pro.monthly", bundleId: bundleId,
            type: ProductType.autoRenewable, purchaseDate: purchased, expiresDate: purchased + 1_000,
            environment: "Sandbox", assertedAt: purchased
        )
    }

    private static func bundleId(_ observations: [TransactionObservation]) throws -> String? {
        var state = ChainState(originalTransactionId: "7")
        for (index, observation) in observations.enumerated() { state.apply(observation, eventID: "e\(index)") }
        let catalog = ProductCatalog(products: ["pro.monthly": .init(entitlements: ["pro"])])
        return try #require(ChainEvaluator(catalog: catalog).evaluate(state, at: Date(timeIntervalSince1970: 10))).bundleId
    }

    @Test func theGoverningTransactionNamesTheApp() throws {
        #expect(try Self.bundleId([Self.observation("7", bundleId: "com.a", purchased: 100), Self.observation("8", bundleId: "com.b", purchased: 200)]) == "com.b")
    }

    @Test func anUnnamedGoverningTransactionTakesAnotherTransactionsApp() throws {
        #expect(try Self.bundleId([Self.observation("7", bundleId: "com.a", purchased: 100), Self.observation("8", bundleId: nil, purchased: 200)]) == "com.a")
    }

    @Test func aChainNoSourceNamedHasNoApp() throws {
        #expect(try Self.bundleId([Self.observation("7", bundleId: nil, purchased: 100)]) == nil)
    }
}
