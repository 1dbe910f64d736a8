import Foundation
import Ledger
import Testing

/// Two observations of one transaction asserted at the same moment: the one that says more has
/// happened wins (a revocation, then a later expiry), then the event id, in whichever order they
/// are folded, so the order is total and the fold independent of arrival.
struct TransactionTieBreakTests {
    private static func observation(expires: Int64?, revoked: Int64? = nil, assertedAt: Int64 = 100) -> TransactionObservation {
        TransactionObservation(
            transactionId: "1", originalTransactionId: "1", productId: "pro.monthly", type: "Auto-Renewable Subscription",
            purchaseDate: 100, expiresDate: expires, revocationDate: revoked, environment: "Sandbox", assertedAt: assertedAt
        )
    }

    @Test func aRevocationBeatsALaterExpiryAtTheSameMoment() {
        let refunded = Self.observation(expires: 200, revoked: 150)
        #expect(keptObservations([Self.observation(expires: 300), refunded]) == [refunded])
        #expect(keptObservations([refunded, Self.observation(expires: 300)]) == [refunded])
    }

    @Test func aLaterExpiryBeatsAnEarlierOneAtTheSameMoment() {
        let extended = Self.observation(expires: 300)
        #expect(keptObservations([extended, Self.observation(expires: 200), Self.observation(expires: nil)]) == [extended])
    }

    @Test func aLaterAssertionStillBeatsEverything() {
        let later = Self.observation(expires: 200, assertedAt: 101)
        #expect(keptObservations([Self.observation(expires: 300, revoked: 150), later]) == [later])
    }

    /// Equal in everything the rule reads: the larger event id, "b", whichever came first.
    @Test func otherwiseTheEventIdDecides() {
        let first = Self.observation(expires: 200)
        var second = Self.observation(expires: 200)
        second.productId = "pro.yearly"
        #expect(keptObservations([first, second]) == [second])
    }
}
