import Foundation
import Ledger
import Testing

/// The token that can claim a chain is its newest transaction's, by purchase date and transaction id,
/// whatever order the observations are folded in.
struct NewestTokenTests {
    private static func observation(_ id: String, purchased: Int64, token: String?, assertedAt: Int64, upgraded: Bool = false) -> TransactionObservation {
        var observation = TransactionObservation(
            transactionId: id, originalTransactionId: "1000", productId: "pro.monthly", type: ProductType.autoRenewable,
            purchaseDate: purchased, expiresDate: purchased + 30, environment: "Sandbox", assertedAt: assertedAt
        )
        observation.appAccountToken = token
        observation.isUpgraded = upgraded
        return observation
    }

    private static func newest(after observations: [TransactionObservation]) -> String? {
        var state = ChainState(originalTransactionId: "1000")
        for (index, observation) in observations.enumerated() {
            state.apply(observation, eventID: "e\(index)")
        }
        return state.newestAppAccountToken
    }

    /// A longer id is a greater number: "10" is newer than "9" on the same purchase date, and an
    /// upgrade or a later expiry asserted afterwards does not change that.
    @Test func theNewestIsByPurchaseDateThenTransactionIdAsANumber() {
        let older = Self.observation("9", purchased: 100, token: "bob", assertedAt: 100)
        let newer = Self.observation("10", purchased: 100, token: "alice", assertedAt: 100)
        let upgraded = Self.observation("10", purchased: 100, token: nil, assertedAt: 200, upgraded: true)
        let earlier = Self.observation("11", purchased: 50, token: "carol", assertedAt: 300)
        for order in [[older, newer, upgraded, earlier], [upgraded, earlier, older, newer], [earlier, upgraded, newer, older]] {
            #expect(Self.newest(after: order) == "alice")
        }
    }

    /// Apple signs one token per transaction; if one is ever seen with two, a token that could name a
    /// user wins over one that could not, in either order, so the invalid one cannot hide it.
    @Test func aTokenThatCanNameAUserBeatsOneThatCannotOnTheSameTransaction() {
        let older = Self.observation("1", purchased: 10, token: "bob", assertedAt: 10)
        let valid = Self.observation("2", purchased: 20, token: "alice", assertedAt: 20)
        let invalid = Self.observation("2", purchased: 20, token: "alice\u{7}", assertedAt: 30)
        #expect(Self.newest(after: [older, valid, invalid]) == "alice")
        #expect(Self.newest(after: [invalid, older, valid]) == "alice")
        #expect(Self.newest(after: [older, invalid]) == "bob")
    }

    @Test func aChainWithoutTokensHasNoNewestToken() {
        #expect(Self.newest(after: [Self.observation("1", purchased: 10, token: nil, assertedAt: 10)]) == nil)
    }
}
