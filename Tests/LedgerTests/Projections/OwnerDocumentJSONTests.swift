import Foundation
import Testing

@testable import Ledger

/// Owner documents are written by `JSONWriter` inside every linking ingest; the bytes must be what
/// `JSONEncoder` with sorted keys wrote before, so one store never holds two spellings of an owner.
@Suite("OwnerDocument: the JSON writer agrees with JSONEncoder")
struct OwnerDocumentJSONTests {
    @Test(arguments: ["u1", "user/with/slashes", "quote\"back\\slash", "tab\tnew\nline", "\u{1F}\u{7F}", "é😀", String(repeating: "x", count: 256)])
    func ownersAreWrittenLikeJSONEncoder(userId: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let document = OwnerDocument(userId: userId)
        let written = document.encodedJSON()
        #expect(String(decoding: written, as: UTF8.self) == String(decoding: try encoder.encode(document), as: UTF8.self))
        #expect(try JSONDecoder().decode(OwnerDocument.self, from: written) == document)
    }
}
