import Foundation
import Ledger
import Testing

/// A receipt or a V1 notification states no product type, so an entry without an expiry or a
/// configured duration is read as `Non-Consumable`. When Apple signed the same transaction with its
/// real type, that type is kept whichever observation wins and in whichever order they are folded:
/// an unfinished consumable listed in a later receipt must not become a lifetime purchase.
struct TransactionTypeMergeTests {
    private static let catalog = ProductCatalog(products: [
        "coins.100": .init(entitlements: []),
        "pass.30days": .init(entitlements: ["pro"], durationDays: 30),
    ])

    private static func observation(_ product: String, type: String, assertedAt: Int64) -> TransactionObservation {
        TransactionObservation(
            transactionId: "5", originalTransactionId: "5", productId: product, type: type,
            purchaseDate: 100, expiresDate: nil, environment: "Sandbox", assertedAt: assertedAt
        )
    }

    @Test func aSignedConsumableStaysConsumableWhenALaterReceiptListsIt() throws {
        let signed = Self.observation("coins.100", type: ProductType.consumable, assertedAt: 100)
        let receipt = Self.observation("coins.100", type: ProductType.nonConsumable, assertedAt: 200)
        let kept = keptObservations([signed, receipt])
        var expected = receipt
        expected.type = ProductType.consumable
        #expect(kept == [expected])

        var state = ChainState(originalTransactionId: "5")
        state.apply(receipt, eventID: "b")
        state.apply(signed, eventID: "a")
        let evaluation = try #require(ChainEvaluator(catalog: Self.catalog).evaluate(state, at: Date(timeIntervalSince1970: 3600)))
        #expect(evaluation.status == .expired)
        #expect(evaluation.productType == ProductType.consumable)
    }

    /// A receipt reads a pass as non-renewing only while the catalog gives it a duration; one read
    /// before the duration was configured said `Non-Consumable`, and Apple's signed type still wins.
    @Test func aSignedNonRenewingSubscriptionKeepsItsTermWhenAReceiptListsIt() {
        let receipt = Self.observation("pass.30days", type: ProductType.nonConsumable, assertedAt: 300)
        let signed = Self.observation("pass.30days", type: ProductType.nonRenewing, assertedAt: 100)
        let again = Self.observation("pass.30days", type: ProductType.nonConsumable, assertedAt: 400)
        #expect(keptObservations([receipt, signed, again]).map { $0?.type } == [ProductType.nonRenewing])
    }

    @Test func agreeingObservationsKeepTheirType() {
        let first = Self.observation("coins.100", type: ProductType.consumable, assertedAt: 100)
        let second = Self.observation("coins.100", type: ProductType.consumable, assertedAt: 200)
        #expect(keptObservations([first, second]) == [second])
    }

    @Test func thePreferenceIsAFunctionOfThePair() {
        let types = [ProductType.nonConsumable, ProductType.nonRenewing, ProductType.consumable, ProductType.autoRenewable, "Future Type"]
        for lhs in types {
            for rhs in types {
                #expect(ProductType.preferred(lhs, rhs) == ProductType.preferred(rhs, lhs), "\(lhs) \(rhs)")
                #expect(ProductType.preferred(lhs, lhs) == lhs)
            }
            #expect(ProductType.preferred(lhs, ProductType.nonConsumable) == lhs)
        }
    }
}
