@testable import Ledger
import Foundation
import Testing

/// A fact whose ids hold U+0000 is refused before its write: its stream and documents would be
/// named with the NUL, which PostgreSQL refuses and SQLite reads back cut short.
@Suite("Ledger: ids holding U+0000")
struct NULIdRuleTests {
    static func transaction(id: String = "1000", original: String = "1000") -> TransactionObservation {
        TransactionObservation(
            transactionId: id, originalTransactionId: original, productId: "pro.monthly",
            type: ProductType.autoRenewable, purchaseDate: 0, environment: "Sandbox", assertedAt: 0
        )
    }

    static func refusal(_ fact: AppleFact, stream: String = "subscription-1000", dedupeKey: String = "v2:x") -> String? {
        do {
            try SubscriptionLedger.refuseIdsHoldingNUL(fact, stream: stream, dedupeKey: dedupeKey)
            return nil
        } catch let error as LedgerError {
            #expect(error.code == .malformedBody)
            return error.message
        } catch {
            Issue.record("unexpected \(error)")
            return nil
        }
    }

    @Test func eachIdThatNamesAStreamOrDocumentIsChecked() {
        #expect(Self.refusal(AppleFact(raw: "{}", transactions: [Self.transaction()], renewals: [RenewalObservation(originalTransactionId: "1000", assertedAt: 0)])) == nil)
        let refused = [
            Self.refusal(AppleFact(raw: "{}", transactions: [Self.transaction(original: "10\u{0}00")])),
            Self.refusal(AppleFact(raw: "{}", transactions: [Self.transaction(id: "10\u{0}01")])),
            Self.refusal(AppleFact(raw: "{}", renewals: [RenewalObservation(originalTransactionId: "20\u{0}00", assertedAt: 0)])),
            Self.refusal(AppleFact(raw: "{}"), stream: "subscription-\u{0}"),
            Self.refusal(AppleFact(raw: "{}"), dedupeKey: "v2:\u{0}"),
        ]
        #expect(refused.map { $0?.components(separatedBy: " \"").first } == [
            "the subscription id", "the transaction id", "the subscription id", "the stream", "the dedupe key",
        ])
        #expect(refused.allSatisfy { $0?.contains("U+0000") == true })
    }
}
