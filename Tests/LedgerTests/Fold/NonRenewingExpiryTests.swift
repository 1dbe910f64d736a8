import Foundation
import Ledger
import Testing

/// A non-renewing purchase ends its configured duration after purchase; a duration whose end is past
/// `Int64` milliseconds (a catalogue built in code, since the configuration caps it at 100 years)
/// saturates to the far future instead of trapping the request that evaluates it.
@Suite("Non-renewing expiry")
struct NonRenewingExpiryTests {
    static func chain(purchased: Int64) -> ChainState {
        var state = ChainState(originalTransactionId: "7000")
        state.apply(TransactionObservation(
            transactionId: "7000", originalTransactionId: "7000", productId: "pass", type: ProductType.nonRenewing,
            purchaseDate: purchased, environment: "Production", assertedAt: 0
        ), eventID: "e1")
        return state
    }

    @Test func aPassEndsItsDurationAfterPurchase() throws {
        let evaluator = ChainEvaluator(catalog: ProductCatalog(products: ["pass": .init(entitlements: ["pro"], durationDays: 30)]))
        let evaluation = try #require(evaluator.evaluate(Self.chain(purchased: 0), at: Date(timeIntervalSince1970: 86_400)))
        #expect(evaluation.status == .active)
        #expect(evaluation.expiresAt == Date(timeIntervalSince1970: 30 * 86_400))
    }

    /// `Int.max` days overflows the multiplication; 106,751,991,167 days (the most milliseconds
    /// `Int64` holds) overflows only once added to a purchase date.
    @Test(arguments: [
        (Int64(0), Int.max),
        (Int64(1_767_225_600_000), 106_751_991_167),
    ])
    func anExpiryPastInt64SaturatesToTheFarFuture(purchased: Int64, days: Int) throws {
        let evaluator = ChainEvaluator(catalog: ProductCatalog(products: ["pass": .init(entitlements: ["pro"], durationDays: days)]))
        let evaluation = try #require(evaluator.evaluate(Self.chain(purchased: purchased), at: Date(timeIntervalSince1970: 1_800_000_000)))
        #expect(evaluation.expiresAt == Date(timeIntervalSince1970: Double(Int64.max) / 1000))
    }
}
