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

    /// Long raw payloads are scanned eight bytes at a time: a character that needs an escape (or a
    /// non-ASCII one, which the word test flags for the byte scan) must be found at every offset.
    @Test(arguments: ["\"", "\\", "/", "\n", "\u{1F}", "\u{0}", "é", "😀", "\u{7F}", " "])
    func longRawPayloadsAreEscapedAtEveryOffset(special: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let filler = "eyJhbGciOiJFUzI1NiIsIng1YyI6WyJNSUlFTURDQ0E3YWdBd0lCQWdJUWZUbGZkMGZOdkZXdnpDMVlJQU5zWGpBS0Jn"
        for offset in 0..<40 {
            for length in [offset + 1, offset + 8, offset + 17, 64] where length > offset {
                var raw = String(filler.prefix(length))
                raw.insert(contentsOf: special, at: raw.index(raw.startIndex, offsetBy: offset))
                raw += special + "." + special + special
                let fact = AppleFact(raw: raw)
                #expect(String(decoding: fact.encodedJSON(), as: UTF8.self) == String(decoding: try encoder.encode(fact), as: UTF8.self))
            }
        }
    }

    @Test(arguments: [UserLink.Outcome.linked, .transferred, .rejected, .unlinked])
    func linksAreWrittenLikeJSONEncoder(_ outcome: UserLink.Outcome) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        for previous in [nil, "u-0", "quote \" and é"] {
            let link = UserLink(
                userId: "user \\ 1/😀", originalTransactionId: "2000000123", source: "app_account_token",
                outcome: outcome, previousUserId: previous
            )
            #expect(String(decoding: link.encodedJSON(), as: UTF8.self) == String(decoding: try encoder.encode(link), as: UTF8.self))
        }
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
            EventMetadata(receivedAt: Date(timeIntervalSince1970: 13), context: IngestContext(source: "POST /v1/users/{user_id}/grants", requestID: "r-2", apiKey: "operator \"eu\"")),
        ]
        for metadata in cases {
            #expect(String(decoding: metadata.encodedJSON(), as: UTF8.self) == String(decoding: try encoder.encode(metadata), as: UTF8.self))
        }
    }
}
