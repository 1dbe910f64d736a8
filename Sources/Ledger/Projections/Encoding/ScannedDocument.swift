import AppStore
import Foundation

/// A read-model document with a `JSONScanner` fast path: the scanner reads the shape our writers
/// write, and `JSONDecoder` (the reference) takes anything else.
protocol ScannedDocument: Decodable {
    /// Reads the whole document, throwing `Unexpected` on anything outside the written shape.
    static func read(from scanner: inout JSONScanner) throws(JSONScanner.Unexpected) -> Self
}

extension ScannedDocument {
    /// Decodes a stored document by the scanner when it can and by `JSONDecoder` otherwise. The
    /// decoder is made only then: making and freeing one took about 0.7% of an entitlement read's CPU.
    static func decode(from data: Data) throws -> Self {
        if let document = scanned(from: data) { return document }
        return try JSONDecoder().decode(Self.self, fromUntrusted: data)
    }

    /// The document read by `JSONScanner`, or nil if the text is not in the expected shape.
    static func scanned(from data: Data) -> Self? {
        data.withUnsafeBytes { bytes -> Self? in
            var scanner = JSONScanner(bytes)
            return try? read(from: &scanner)
        }
    }
}
