import AppStoreTesting
import Foundation
import Ledger
import Testing

@Suite("The fold is a function of the set of events")
struct FoldPermutationTests {
    /// A generated lifecycle: renewals, refunds and their reversals, renewal-info changes, upgrades,
    /// and repeats (Apple retries, replays), as (event id, fact) pairs.
    static func lifecycle(seed: UInt64) -> [(String, AppleFact)] {
        var random = SplitMix64(state: seed)
        var events: [(String, AppleFact)] = []
        let periods = Int.random(in: 1...8, using: &random)
        var day: Int64 = 0
        for period in 0..<periods {
            let product = Bool.random(using: &random) ? "pro.monthly" : "basic.monthly"
            let purchase = Day.zero + day * Day.length
            let expiry = purchase + 30 * Day.length
            let id = "\(1000 + period)"
            var transaction = TransactionObservation(
                transactionId: id, originalTransactionId: "1000", productId: product, type: ProductType.autoRenewable,
                purchaseDate: purchase, expiresDate: expiry, environment: "Sandbox", assertedAt: purchase
            )
            events.append((UUID(uuid: Self.uuid(&random)).uuidString.lowercased(), AppleFact(raw: "", transactions: [transaction])))
            if Int.random(in: 0..<4, using: &random) == 0 {
                // Refunded later, and sometimes the refund is reversed later still.
                transaction.revocationDate = purchase + Int64.random(in: 1...20, using: &random) * Day.length
                transaction.assertedAt = transaction.revocationDate ?? purchase
                events.append((UUID(uuid: Self.uuid(&random)).uuidString.lowercased(), AppleFact(raw: "", transactions: [transaction])))
                if Bool.random(using: &random) {
                    transaction.revocationDate = nil
                    transaction.assertedAt += Int64.random(in: 1...5, using: &random) * Day.length
                    events.append((UUID(uuid: Self.uuid(&random)).uuidString.lowercased(), AppleFact(raw: "", transactions: [transaction])))
                }
            }
            if Int.random(in: 0..<5, using: &random) == 0 {
                // Listed again by a receipt, which states no type: its fallback must not win.
                var listed = transaction
                listed.type = ProductType.nonConsumable
                listed.assertedAt += Int64.random(in: 0...3, using: &random) * Day.length
                events.append((UUID(uuid: Self.uuid(&random)).uuidString.lowercased(), AppleFact(raw: "", transactions: [listed])))
            }
            if Int.random(in: 0..<5, using: &random) == 0 {
                transaction.isUpgraded = true
                transaction.assertedAt += Day.length
                events.append((UUID(uuid: Self.uuid(&random)).uuidString.lowercased(), AppleFact(raw: "", transactions: [transaction])))
            }
            let renewal = RenewalObservation(
                originalTransactionId: "1000",
                autoRenewStatus: Bool.random(using: &random),
                autoRenewProductId: Bool.random(using: &random) ? "pro.monthly" : "basic.monthly",
                isInBillingRetryPeriod: Bool.random(using: &random),
                gracePeriodExpiresDate: Bool.random(using: &random) ? expiry + 6 * Day.length : nil,
                // Ties on assertion time are frequent: they must break the same way each time.
                assertedAt: purchase + Int64.random(in: 0...2, using: &random) * Day.length
            )
            events.append((UUID(uuid: Self.uuid(&random)).uuidString.lowercased(), AppleFact(raw: "", renewals: [renewal])))
            day += 30
        }
        // Duplicated deliveries of some events.
        for _ in 0..<Int.random(in: 0...3, using: &random) {
            if let repeated = events.randomElement(using: &random) { events.append(repeated) }
        }
        return events
    }

    static func uuid(_ random: inout SplitMix64) -> uuid_t {
        var bytes = [UInt8](repeating: 0, count: 16)
        for index in 0..<16 { bytes[index] = UInt8.random(in: 0...255, using: &random) }
        return (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15])
    }

    static func fold(_ events: [(String, AppleFact)]) -> ChainState {
        var state = ChainState(originalTransactionId: "1000")
        for (id, fact) in events { state.apply(fact, eventID: id, stream: LedgerEventType.chainStream(state.originalTransactionId)) }
        return state
    }

    @Test(arguments: 0..<300)
    func anyArrivalOrderFoldsToTheSameStateAndStatus(_ seed: Int) {
        let events = Self.lifecycle(seed: UInt64(seed))
        let reference = Self.fold(events)
        // Apple signed every transaction as a subscription; a receipt's listing does not change that.
        #expect(reference.transactions.values.allSatisfy { $0.value.type == ProductType.autoRenewable }, "seed \(seed)")
        let evaluator = ChainEvaluator(catalog: LedgerHarness.catalog)
        let moments = stride(from: 0.0, through: 300.0, by: 7.5).map(Day.date)
        let referenceStatus = moments.map { evaluator.evaluate(reference, at: $0) }
        var random = SplitMix64(state: UInt64(seed) &* 7919)
        for _ in 0..<5 {
            let shuffled = events.shuffled(using: &random)
            let state = Self.fold(shuffled)
            #expect(state == reference, "seed \(seed)")
            #expect(moments.map { evaluator.evaluate(state, at: $0) } == referenceStatus, "seed \(seed)")
        }
    }

    /// Observations asserted in the same millisecond that say different things are ordered by what
    /// they say, not by their events' random ids, so two ledgers given the same inputs agree (domain
    /// walkthrough: auto-renew off and on, signed in one millisecond, gave `will_renew` true in some
    /// fresh ledgers and false in others). The same holds for two observations of one transaction.
    @Test func tiesAreBrokenByWhatTheObservationsSayWhateverTheEventIds() {
        let off = RenewalObservation(originalTransactionId: "1000", autoRenewStatus: false, autoRenewProductId: "pro.monthly", assertedAt: Day.ms(10))
        let on = RenewalObservation(originalTransactionId: "1000", autoRenewStatus: true, autoRenewProductId: "pro.monthly", assertedAt: Day.ms(10))
        var owned = TransactionObservation(transactionId: "1000", originalTransactionId: "1000", productId: "pro.monthly",
                                           type: ProductType.autoRenewable, purchaseDate: Day.ms(0), expiresDate: Day.ms(30),
                                           environment: "Sandbox", assertedAt: Day.ms(10))
        owned.ownership = "PURCHASED"
        var shared = owned
        shared.ownership = "FAMILY_SHARED"
        var outcomes: Set<[String]> = []
        for ids in [("a", "b"), ("b", "a")] {
            for swapped in [false, true] {
                var state = ChainState(originalTransactionId: "1000")
                let renewals = swapped ? [on, off] : [off, on]
                let transactions = swapped ? [shared, owned] : [owned, shared]
                state.apply(renewals[0], eventID: ids.0)
                state.apply(renewals[1], eventID: ids.1)
                state.apply(transactions[0], eventID: ids.0)
                state.apply(transactions[1], eventID: ids.1)
                let renewal = state.renewal(at: Day.ms(10))?.value.autoRenewStatus
                outcomes.insert(["\(String(describing: renewal))", state.transactions["1000"]?.value.ownership ?? "none"])
            }
        }
        #expect(outcomes.count == 1, "\(outcomes)")
    }

    @Test func aLateOlderObservationNeverMovesStateBackwards() {
        var state = ChainState(originalTransactionId: "1000")
        let renewed = TransactionObservation(transactionId: "1001", originalTransactionId: "1000", productId: "pro.monthly",
                                             type: ProductType.autoRenewable, purchaseDate: Day.ms(30), expiresDate: Day.ms(60),
                                             environment: "Sandbox", assertedAt: Day.ms(30))
        var refunded = renewed
        refunded.revocationDate = Day.ms(40)
        refunded.assertedAt = Day.ms(40)
        state.apply(refunded, eventID: "b")
        state.apply(renewed, eventID: "a")   // the older DID_RENEW arrives late
        #expect(state.transactions["1001"]?.value.revocationDate == Day.ms(40))
    }
}
