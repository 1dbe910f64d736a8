import AppStore
import Foundation
import Testing

@testable import Ledger

/// Facts and event metadata are written by `JSONWriter`; the bytes must be what `JSONEncoder` with
/// `.sortedKeys` wrote before, so events keep one encoding whichever wrote them.
@Suite("Facts and metadata: JSONWriter agrees with JSONEncoder")
struct FactJSONTests {
    @Test(arguments: 0..<200)
    func randomFactsAreWrittenLikeJSONEncoder(seed: Int) throws {
        var random = SplitMix64(state: UInt64(seed) &+ 1000)
        let fact = AppleFactScanningTests.randomFact(&random)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        #expect(String(decoding: fact.encodedJSON(), as: UTF8.self) == String(decoding: try encoder.encode(fact), as: UTF8.self))
    }

    @Test func metadataIsWrittenLikeJSONEncoder() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let facts = VerificationFacts(
            leafCertificateFingerprint: "ab\"cd/ef", effectiveDate: Date(timeIntervalSince1970: 1_795_435_200.123),
            environment: .sandbox, isSignatureVerified: true
        )
        let cases = [
            EventMetadata(receivedAt: Date(timeIntervalSince1970: 1_795_435_200.5), context: IngestContext(source: "POST /v1/apple/notifications/v2", requestID: "r-1")),
            EventMetadata(receivedAt: Date(timeIntervalSince1970: 0), context: IngestContext(source: "test"), facts: facts),
            EventMetadata(receivedAt: Date(timeIntervalSince1970: 12), context: IngestContext(source: "é\n😀", requestID: nil), facts: facts),
        ]
        for metadata in cases {
            #expect(String(decoding: metadata.encodedJSON(), as: UTF8.self) == String(decoding: try encoder.encode(metadata), as: UTF8.self))
        }
    }
}
