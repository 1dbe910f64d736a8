import Foundation
import Testing

@testable import Ledger

/// `JSONWriter` writes `/` as `JSONEncoder` does: escaped by default (the stored spelling), plain
/// with `escapingSlashes: false` as `.withoutEscapingSlashes` writes it (the answers' spelling).
struct JSONWriterSlashTests {
    @Test(arguments: [
        "a/b", "/", "//", "no slash", "a/b\"c\\d/e\n", "https://example.com/path/to/a/long/thing?x=1", "\u{1}/é/😀/\t/",
        String(repeating: "abcdefg/", count: 20),
    ])
    func slashesAreWrittenAsTheEncoderWritesThem(_ value: String) throws {
        for escaping in [true, false] {
            var writer = JSONWriter(capacity: 64, escapingSlashes: escaping)
            writer.string(value)
            let encoder = JSONEncoder()
            if !escaping { encoder.outputFormatting = .withoutEscapingSlashes }
            #expect(writer.bytes == Array(try encoder.encode(value)), "\(value.debugDescription), escaping: \(escaping)")
        }
    }
}
