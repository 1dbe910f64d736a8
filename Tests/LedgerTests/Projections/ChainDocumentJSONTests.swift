import Foundation
import Testing

@testable import Ledger

/// Chain documents are written by a hand-made JSON writer (every ingest and replay writes them); its
/// bytes must be exactly what `JSONEncoder` with sorted keys writes, and read back to the same value.
@Suite("ChainDocument: the JSON writer agrees with JSONEncoder")
struct ChainDocumentJSONTests {
    @Test(arguments: 0..<200)
    func randomDocumentsEncodeLikeJSONEncoder(seed: Int) throws {
        var random = SplitMix64(state: UInt64(seed) &+ 7_000)
        let document = Self.randomDocument(&random)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let expected = try encoder.encode(document)
        let written = document.encodedJSON()
        #expect(String(decoding: written, as: UTF8.self) == String(decoding: expected, as: UTF8.self))
        #expect(try JSONDecoder().decode(ChainDocument.self, from: written) == document)
        // Reads take the scanner; it must give the same document, from either writer's bytes.
        let scanned = ChainDocument.scanned(from: written)
        let keysNeedEscapes = document.state.transactions.keys.contains { $0.contains("/") }
        #expect(scanned == (keysNeedEscapes ? nil : document))
        #expect(try ChainDocument.decode(from: expected) == document)
    }

    /// Text outside the scanner's shape goes to JSONDecoder, which accepts or rejects it as before.
    @Test(arguments: [
        #"{"position":1,"state":{"originalTransactionId":"o","transactions":{}},"extra":[1,{"a":null}]}"#,
        #"{"position":1.5,"state":{"originalTransactionId":"o","transactions":{}}}"#,
        #"{"position":1,"state":{"originalTransactionId":"o"}}"#,
        #"{"position":1,"state":{"originalTransactionId":"o","transactions":{"a\/b":{"assertedAt":1,"eventID":"e","value":{}}}}}"#,
        #"{"position":1,"state":{"originalTransactionId":"o","renewal":null,"transactions":{}}}"#,
        #"{"position":1,"state":{"originalTransactionId":"o","renewals":null,"transactions":{}}}"#,
        #"{"position":1,"state":{"originalTransactionId":"o","renewals":[null],"transactions":{}}}"#,
        "[]",
        // Keys twice, and both renewal forms: JSONDecoder keeps the first of two equal keys and
        // prefers `renewals`, so the scanner gives up on the first and follows the second. Found by
        // `scripts/fuzz stored`.
        #"{"position":1,"state":{"originalTransactionId":"o","originalTransactionId":"p","transactions":{}}}"#,
        #"{"position":1,"state":{"originalTransactionId":"o","transactions":{"t":\#(ChainDocumentJSONTests.observedTransaction("e1")),"t":\#(ChainDocumentJSONTests.observedTransaction("e2"))}}}"#,
        #"{"position":1,"state":{"originalTransactionId":"o","renewal":\#(ChainDocumentJSONTests.observedRenewal("e1")),"renewals":[\#(ChainDocumentJSONTests.observedRenewal("e2"))],"transactions":{}}}"#,
        #"{"position":1,"state":{"originalTransactionId":"o","renewals":[\#(ChainDocumentJSONTests.observedRenewal("e2"))],"renewal":\#(ChainDocumentJSONTests.observedRenewal("e1")),"transactions":{}}}"#,
    ])
    func unexpectedShapesFallBackToJSONDecoder(text: String) {
        let data = Data(text.utf8)
        let viaDecode = try? ChainDocument.decode(from: data)
        let viaFoundation = try? JSONDecoder().decode(ChainDocument.self, from: data)
        #expect(viaDecode == viaFoundation)
    }

    static func observedTransaction(_ eventID: String) -> String {
        #"{"assertedAt":1,"eventID":"\#(eventID)","value":{"assertedAt":1,"environment":"Sandbox","isUpgraded":false,"originalTransactionId":"o","ownership":"PURCHASED","productId":"p","purchaseDate":1,"transactionId":"t","type":"Auto-Renewable Subscription"}}"#
    }

    static func observedRenewal(_ eventID: String) -> String {
        #"{"assertedAt":5,"eventID":"\#(eventID)","value":{"assertedAt":5,"autoRenewStatus":true,"originalTransactionId":"o"}}"#
    }

    @Test func bothRenewalFormsReadAsTheHistory() throws {
        for text in [
            #"{"position":1,"state":{"originalTransactionId":"o","renewal":\#(Self.observedRenewal("e1")),"renewals":[\#(Self.observedRenewal("e2"))],"transactions":{}}}"#,
            #"{"position":1,"state":{"originalTransactionId":"o","renewals":[\#(Self.observedRenewal("e2"))],"renewal":\#(Self.observedRenewal("e1")),"transactions":{}}}"#,
        ] {
            let document = try ChainDocument.decode(from: Data(text.utf8))
            #expect(document.state.renewals.map(\.eventID) == ["e2"])
        }
    }

    /// Documents written before renewal history was kept hold one `renewal`, the latest: both readers
    /// take it as a history of one, and the writer writes it back as `renewals`.
    @Test func aDocumentWithTheLatestRenewalOnlyReadsAsAHistoryOfOne() throws {
        let text = #"{"position":7,"state":{"originalTransactionId":"o","renewal":{"assertedAt":5,"eventID":"e1","value":{"assertedAt":5,"autoRenewStatus":true,"originalTransactionId":"o"}},"transactions":{}}}"#
        let scanned = try #require(ChainDocument.scanned(from: Data(text.utf8)))
        let decoded = try JSONDecoder().decode(ChainDocument.self, from: Data(text.utf8))
        #expect(scanned == decoded)
        #expect(scanned.state.renewals.map(\.eventID) == ["e1"])
        #expect(scanned.state.renewals.last?.value.autoRenewStatus == true)
        #expect(String(decoding: scanned.encodedJSON(), as: UTF8.self).contains(#""renewals":[{"assertedAt":5"#))
    }

    /// Documents written before tokens were kept by transaction hold an `appAccountTokens` list: both
    /// readers skip it, and the winning observations' tokens stand in for the transactions' tokens.
    @Test func aDocumentWithTheOldTokenListReadsWithTheWinningObservationsTokens() throws {
        let withToken = Self.observedTransaction("e1").replacingOccurrences(of: #""assertedAt":1,"environment""#, with: #""appAccountToken":"alice","assertedAt":1,"environment""#)
        let text = #"{"position":3,"state":{"appAccountTokens":["alice","bob"],"originalTransactionId":"o","renewals":[],"transactions":{"t":\#(withToken)}}}"#
        let scanned = try #require(ChainDocument.scanned(from: Data(text.utf8)))
        let decoded = try JSONDecoder().decode(ChainDocument.self, from: Data(text.utf8))
        #expect(scanned == decoded)
        #expect(scanned.state.transactionTokens.isEmpty)
        #expect(scanned.state.newestAppAccountToken == "alice")
        #expect(!String(decoding: scanned.encodedJSON(), as: UTF8.self).contains("appAccountTokens"))
    }

    @Test func anEmptyChainIsWrittenLikeJSONEncoder() throws {
        let document = ChainDocument(state: ChainState(originalTransactionId: "2000000123"), position: 0)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        #expect(document.encodedJSON() == (try encoder.encode(document)))
    }

    static func randomDocument(_ random: inout SplitMix64) -> ChainDocument {
        let fact = AppleFactScanningTests.randomFact(&random)
        var state = ChainState(originalTransactionId: fact.transactions.first?.originalTransactionId ?? "2000000123")
        // Ids of different lengths and shapes, so key order is tested (\"10\" sorts before \"9\").
        let ids = ["9", "10", "2000000123-9", "2000000123-10", "a/b", "Z", "é"]
        for (offset, transaction) in fact.transactions.enumerated() {
            let id = ids[Int(random.next() % UInt64(ids.count))] + String(offset)
            state.transactions[id] = Observed(transaction, assertedAt: transaction.assertedAt, eventID: UUID().uuidString.lowercased())
        }
        for renewal in fact.renewals {
            state.apply(renewal, eventID: "e\(random.next() % 100)")
        }
        // Other streams holding facts about the chain: none (the field is left out), or a few.
        let streams = ["user-u1", "user-é", "subscription-3000", "user-a/b", "user-\"q\""]
        state.otherStreams = (0..<Int(random.next() % 4)).map { _ in streams[Int(random.next() % UInt64(streams.count))] }
        state.otherStreams = Array(Set(state.otherStreams)).sorted()
        // Tokens the chain's transactions carried: none (the field is left out), or a few.
        let tokens = ["5e1f6c1a-2b3c-4d5e-8f90-a1b2c3d4e5f6", "u1", "é", "a\"b"]
        for id in state.transactions.keys.sorted() where random.next() % 2 == 0 {
            state.transactionTokens[id] = tokens[Int(random.next() % UInt64(tokens.count))]
        }
        return ChainDocument(state: state, position: Int64(random.next() % 1_000_000))
    }
}
