import Foundation
import Testing

@testable import Ledger

/// The fast scanner that replay uses for `AppleFact` must read exactly what `JSONDecoder` reads, and
/// hand anything else back to `JSONDecoder`.
@Suite("AppleFact: the fast scanner agrees with JSONDecoder")
struct AppleFactScanningTests {
    /// Random facts, every optional field present or absent, strings with escapes and non-ASCII text.
    @Test(arguments: 0..<200)
    func randomFactsScanToWhatJSONDecoderDecodes(seed: Int) throws {
        var random = SplitMix64(state: UInt64(seed))
        let fact = Self.randomFact(&random)
        let encoder = JSONEncoder()
        encoder.outputFormatting = random.next() % 2 == 0 ? [.sortedKeys] : [.prettyPrinted, .withoutEscapingSlashes]
        let data = try encoder.encode(fact)
        let scanned = try #require(AppleFact.scanned(from: data), "the scanner gave up on \(String(decoding: data, as: UTF8.self))")
        #expect(scanned == (try JSONDecoder().decode(AppleFact.self, from: data)))
        #expect(scanned == fact)
    }

    /// Folds skip the raw input: the rest of the fact must come out the same whatever the raw text
    /// holds, wherever an escape, a control or non-ASCII byte sits in it (the skip reads 8 bytes at once).
    @Test(arguments: ["\"", "\\", "/", "\n", "\u{1}", "é", "😀", "x"])
    func skippingTheRawInputKeepsTheRest(special: String) throws {
        var random = SplitMix64(state: 42)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        for before in 0..<20 {
            var fact = Self.randomFact(&random)
            fact.raw = String(repeating: "a", count: before) + special + String(repeating: "b", count: 19 - before)
            let data = try encoder.encode(fact)
            let skipped = try #require(AppleFact.scanned(from: data, includingRaw: false))
            #expect(skipped.raw == "")
            #expect(AppleFact.scanned(from: data)?.raw == fact.raw)
            fact.raw = ""
            #expect(skipped == fact)
        }
    }

    @Test func nullOptionalsUnknownKeysAndEscapesAreRead() throws {
        let text = #"""
        { "raw" : "a\"b\\c\/d\u00e9\ud83d\ude00\n", "unknown": {"nested": [1, 2.5e3, true, null, "x"]},
          "notificationType": null, "transactions": [ {"transactionId": "t1", "originalTransactionId": "o1",
          "productId": "p", "type": "Auto-Renewable Subscription", "purchaseDate": -5, "expiresDate": null,
          "isUpgraded": false, "ownership": "PURCHASED", "environment": "Sandbox", "assertedAt": 9223372036854775807,
          "revocationReason": 0, "extra": {}} ],
          "renewals": [{"originalTransactionId": "o1", "autoRenewStatus": true, "assertedAt": 0}] }
        """#
        let data = Data(text.utf8)
        let scanned = try #require(AppleFact.scanned(from: data))
        #expect(scanned == (try JSONDecoder().decode(AppleFact.self, from: data)))
        #expect(scanned.raw == "a\"b\\c/d\u{e9}\u{1F600}\n")
        #expect(scanned.transactions.first?.assertedAt == Int64.max)
    }

    /// Text outside the scanner's shape goes to JSONDecoder, which accepts or rejects it as before.
    @Test(arguments: [
        #"{"raw":"r","transactions":[],"renewals":[{"originalTransactionId":"o","assertedAt":1.0}]}"#,
        #"{"raw":"r","transactions":[],"renewals":[{"originalTransactionId":"o","assertedAt":1e3}]}"#,
        #"{"raw":"r","transactions":[]}"#,
        #"{"raw":null,"transactions":[],"renewals":[]}"#,
        #"{"raw":"r","transactions":[],"renewals":[]} trailing"#,
        #"{"raw":"r","transactions":[],"renewals":[{"originalTransactionId":"o","assertedAt":99999999999999999999}]}"#,
        #"{"raw":"\ud83d","transactions":[],"renewals":[]}"#,
        #"["raw"]"#,
        "",
        // A known key twice: JSONDecoder keeps the first, so the scanner (which kept the last) gives
        // up. Found by `scripts/fuzz stored`.
        #"{"raw":"r","raw":"s","transactions":[],"renewals":[]}"#,
        #"{"raw":"r","transactions":[\#(AppleFactScanningTests.transaction(#""type":"A","type":"B""#))],"renewals":[]}"#,
        #"{"raw":"r","transactions":[],"renewals":[{"originalTransactionId":"o","autoRenewStatus":null,"autoRenewStatus":true,"assertedAt":1}]}"#,
    ])
    func unexpectedShapesFallBackToJSONDecoder(text: String) {
        let data = Data(text.utf8)
        #expect(AppleFact.scanned(from: data) == nil)
        let viaDecode = try? AppleFact.decode(from: data, decoder: JSONDecoder())
        let viaFoundation = try? JSONDecoder().decode(AppleFact.self, from: data)
        #expect(viaDecode == viaFoundation)
    }

    /// A transaction observation's JSON with `fields` in place of its `type`.
    static func transaction(_ fields: String) -> String {
        #"{"transactionId":"t","originalTransactionId":"o","productId":"p",\#(fields),"purchaseDate":1,"isUpgraded":false,"ownership":"PURCHASED","environment":"Sandbox","assertedAt":1}"#
    }

    @Test func aDuplicatedKeyReadsAsJSONDecoderReadsIt() throws {
        let data = Data(#"{"raw":"r","transactions":[\#(Self.transaction(#""type":"A","type":"B""#))],"renewals":[]}"#.utf8)
        let fact = try AppleFact.decode(from: data, decoder: JSONDecoder())
        #expect(fact.transactions.first?.type == "A")
    }

    // MARK: Generation

    static func randomFact(_ random: inout SplitMix64) -> AppleFact {
        func maybe<T>(_ value: @autoclosure () -> T) -> T? { random.next() % 2 == 0 ? value() : nil }
        func text() -> String {
            let pieces = ["abc", "\"", "\\", "/", "\n", "\t", "é", "😀", "\u{1}", "2000000123", " ", "{}[]:,"]
            return (0..<Int(random.next() % 6)).map { _ in pieces[Int(random.next() % UInt64(pieces.count))] }.joined()
        }
        func int64() -> Int64 { Int64(bitPattern: random.next()) >> Int64(random.next() % 64) }
        let transactions = (0..<Int(random.next() % 3)).map { _ in
            TransactionObservation(
                transactionId: text(), originalTransactionId: text(), productId: text(), bundleId: maybe(text()),
                type: text(), purchaseDate: int64(), expiresDate: maybe(int64()), revocationDate: maybe(int64()),
                revocationReason: maybe(Int(int64())), revocationType: maybe(text()), isUpgraded: random.next() % 2 == 0,
                ownership: text(), environment: text(), appAccountToken: maybe(text()), offerType: maybe(Int(int64())),
                assertedAt: int64()
            )
        }
        let renewals = (0..<Int(random.next() % 3)).map { _ in
            RenewalObservation(
                originalTransactionId: text(), autoRenewStatus: maybe(random.next() % 2 == 0), autoRenewProductId: maybe(text()),
                productId: maybe(text()), isInBillingRetryPeriod: maybe(random.next() % 2 == 0),
                gracePeriodExpiresDate: maybe(int64()), expirationIntent: maybe(Int(int64())),
                priceIncreaseStatus: maybe(Int(int64())), environment: maybe(text()), assertedAt: int64()
            )
        }
        return AppleFact(
            raw: text(), notificationType: maybe(text()), subtype: maybe(text()), notificationUUID: maybe(text()),
            bundleId: maybe(text()), userId: maybe(text()), transactions: transactions, renewals: renewals
        )
    }
}
