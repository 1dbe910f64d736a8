@testable import AppStore
import Foundation
import Testing

/// The scanner's strings and skipped values, against `JSONDecoder`.
@Suite("JSONScanner: strings, skipped values and nesting")
struct JSONScannerTests {
    func scannedString(_ json: String) -> String? {
        Data(json.utf8).withUnsafeBytes { bytes in
            var scanner = JSONScanner(bytes)
            guard let text = try? scanner.readString(), (try? scanner.finish()) != nil else { return nil }
            return text
        }
    }

    func skips(_ json: String) -> Bool {
        Data(json.utf8).withUnsafeBytes { bytes in
            var scanner = JSONScanner(bytes)
            return (try? scanner.skipValue()) != nil && (try? scanner.finish()) != nil
        }
    }

    /// Long ASCII runs are stepped over eight bytes at a time: an escape, a non-ASCII character, a
    /// control character or the closing quote at any offset must still be seen.
    @Test func readsStringsWithAnythingAtEveryOffset() throws {
        let inserts = [#"\n"#, #"\""#, #"\\"#, #"\u00e9"#, "é", "😀", "\u{7f}", "\u{01}", "\t"]
        for insert in inserts {
            for offset in 0..<40 {
                let json = "\"" + String(repeating: "a", count: offset) + insert + String(repeating: "b", count: 40 - offset) + "\""
                let expected = try? JSONDecoder().decode(String.self, from: Data(json.utf8))
                #expect(scannedString(json) == expected, "\(insert) at \(offset)")
                if insert == "\u{01}" || insert == "\t" { #expect(expected == nil) }
            }
        }
        for length in 0..<40 {
            let text = String(repeating: "x", count: length)
            #expect(scannedString("\"\(text)\"") == text)
            #expect(scannedString("\"\(text)") == nil)
        }
    }

    /// Skipped numbers must follow JSON's grammar, so a fast path never accepts broken text.
    @Test func skipsOnlyNumbersJSONAllows() {
        for number in ["0", "-0", "12", "-12", "1.5", "0.25", "1e3", "1E+3", "-1.5e-3"] {
            #expect(skips(number), "\(number)")
        }
        for number in ["01", "-", "1.", ".5", "1e", "1e+", "+1", "--1", "1.2.3", "0x1"] {
            #expect(!skips(number), "\(number)")
        }
    }

    /// `JSONDecoder` refuses a document with a key that is not UTF-8, even one it does not read.
    @Test func refusesKeysThatAreNotUTF8() {
        func object(key: [UInt8]) -> Data { Data(Array(#"{""#.utf8) + key + Array(#"":1}"#.utf8)) }
        for (key, valid) in [(Array("é".utf8), true), (Array("x😀".utf8), true), ([0x78, 0xFF], false), ([0xC3], false)] {
            let data = object(key: key)
            let scanned = data.withUnsafeBytes { bytes -> Bool in
                var scanner = JSONScanner(bytes)
                return (try? scanner.skipValue()) != nil && (try? scanner.finish()) != nil
            }
            let decoded = (try? JSONDecoder().decode([String: Int].self, from: data)) != nil
            #expect(scanned == valid, "\(key)")
            #expect(decoded == valid, "\(key)")
        }
    }

    @Test func leavesDeepNestingToJSONDecoder() {
        let depth = JSONScanner.maximumDepth
        #expect(skips(String(repeating: "[", count: depth) + "1" + String(repeating: "]", count: depth)))
        #expect(!skips(String(repeating: "[", count: depth + 1) + "1" + String(repeating: "]", count: depth + 1)))
        #expect(skips(String(repeating: #"{"a":"#, count: depth) + "1" + String(repeating: "}", count: depth)))
        #expect(!skips(String(repeating: #"{"a":"#, count: depth + 1) + "1" + String(repeating: "}", count: depth + 1)))
    }
}
