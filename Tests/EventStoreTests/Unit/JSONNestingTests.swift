@testable import EventStore
import Foundation
import Testing

/// The nesting bound the store checks itself: SQLite's, counted as SQLite counts it.
@Suite("JSON nesting bound")
struct JSONNestingTests {
    /// An object holding `depth - 1` arrays inside one another: `depth` containers deep in all.
    static func nested(_ depth: Int, inside prefix: String = "") -> Data {
        Data(("{\"a\":" + prefix + String(repeating: "[", count: depth - 1) + String(repeating: "]", count: depth - 1) + "}").utf8)
    }

    static func exceeds(_ data: Data) -> Bool {
        data.withUnsafeBytes { JSONNesting.exceedsLimit($0) }
    }

    @Test func aThousandLevelsPassAndOneMoreDoesNot() {
        #expect(!Self.exceeds(Self.nested(JSONNesting.limit)))
        #expect(Self.exceeds(Self.nested(JSONNesting.limit + 1)))
        #expect(Self.exceeds(Self.nested(20_000)))
    }

    /// Many containers side by side nest only one deep: the walk, not the count of openers, decides.
    @Test func manyContainersSideBySideAreShallow() {
        let wide = Data(("{\"a\":[" + Array(repeating: "{\"b\":[]}", count: 3_000).joined(separator: ",") + "]}").utf8)
        #expect(!Self.exceeds(wide))
    }

    /// Brackets inside strings are text, escaped quotes included.
    @Test func bracketsInsideStringsAreNotNesting() {
        let brackets = String(repeating: "[{", count: 2_000)
        #expect(!Self.exceeds(Data(("{\"a\":\"" + brackets + "\"}").utf8)))
        #expect(!Self.exceeds(Data(("{\"a\":\"\\\"" + brackets + "\\\\\",\"b\":1}").utf8)))
        // An escaped quote does not end the string; the brackets after a closed one count again.
        #expect(Self.exceeds(Data(("{\"a\":\"x\\\"\"," + "\"b\":" + String(repeating: "[", count: 1_000) + String(repeating: "]", count: 1_000) + "}").utf8)))
    }
}
