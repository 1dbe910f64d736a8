import Foundation
import Testing

/// Foundation's `JSONDecoder` traps on some broken text (see `JSONDecoder+Untrusted.swift`), so every
/// decode in the package's sources goes through `decode(_:fromUntrusted:)`. This reads the sources and
/// fails on a plain `decode(_:from:)` anywhere but inside the guard itself, so a new call site cannot
/// bring the crash back unnoticed.
@Suite struct UntrustedDecodeRuleTests {
    /// A `decode` call with an argument labelled `from:` after a comma, across line breaks and one
    /// level of nested brackets (`decode(type(of: x), from:)`, `decode([String: Int].self, from:)`):
    /// the shape of `JSONDecoder.decode(_:from:)` (and of `PropertyListDecoder`'s). Our documents'
    /// `decode(from:)` helpers and `Base64.decode(_:)` do not match. Not `\b`: Swift's default word
    /// boundaries follow Unicode's, where `decoder.decode` is one word.
    private static var plainDecode: Regex<Substring> {
        #/(?:^|[^A-Za-z0-9_])`?decode`?\s*\((?:[^()]|\([^()]*\))*?,\s*from\s*:/#
    }

    /// The method named without a call, as in `map(decoder.decode(_:from:))`.
    private static var plainReference: Regex<Substring> { #/decode\(_:\s*from:\)/# }

    /// The one file allowed to call the plain form: the guard, after its check.
    private static let guardFile = "Sources/AppStore/Support/JSONDecoder+Untrusted.swift"

    private static func sources() throws -> [(path: String, text: String)] {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let sources = root.appendingPathComponent("Sources")
        guard let walker = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil) else {
            throw CocoaError(.fileReadNoSuchFile)
        }
        var files: [(path: String, text: String)] = []
        for case let url as URL in walker where url.pathExtension == "swift" {
            let path = "Sources" + url.standardizedFileURL.path.dropFirst(sources.standardizedFileURL.path.count)
            files.append((path, try String(contentsOf: url, encoding: .utf8)))
        }
        return files.sorted { $0.path < $1.path }
    }

    @Test func everyJSONDecodeInTheSourcesGoesThroughTheUntrustedGuard() throws {
        let files = try Self.sources()
        #expect(files.count > 100, "found \(files.count) Swift files under Sources")
        var offenders: [String] = []
        var guardCalls = 0
        for file in files {
            // Comments may name the method; lines keep their numbers.
            let code = file.text.split(separator: "\n", omittingEmptySubsequences: false)
                .map { line in line.range(of: "//").map { line[..<$0.lowerBound] } ?? line }
                .joined(separator: "\n")
            for match in code.matches(of: Self.plainDecode) + code.matches(of: Self.plainReference) {
                if file.path == Self.guardFile {
                    guardCalls += 1
                    continue
                }
                let line = code[..<match.range.lowerBound].reduce(1) { $1 == "\n" ? $0 + 1 : $0 }
                offenders.append("\(file.path):\(line): \(code[match.range])")
            }
        }
        #expect(offenders.isEmpty, "use decode(_:fromUntrusted:) instead: \(offenders.joined(separator: "; "))")
        // The pattern must see the guard's own plain call, or it would pass on anything.
        #expect(guardCalls == 1)
    }

    @Test func thePatternFindsThePlainFormAndLeavesTheOthers() {
        #expect("try JSONDecoder().decode(Header.self, from: bytes)".contains(Self.plainDecode))
        #expect("try decoder.decode(\n    [String: Int].self,\n    from: data)".contains(Self.plainDecode))
        #expect(!"try JSONDecoder().decode(Header.self, fromUntrusted: bytes)".contains(Self.plainDecode))
        #expect(!"try UserDocument.decode(from: data)".contains(Self.plainDecode))
        #expect(!"Base64.decode(segment)".contains(Self.plainDecode))
        #expect(!"try container.decode(String.self, forKey: .from)".contains(Self.plainDecode))
        #expect(!"try redecode(Header.self, from: bytes)".contains(Self.plainDecode))
        for shape in [
            "decoder.decode(Dictionary<String, Int>.self, from: data)", "decoder.decode([String: Result<A, B>].self, from: data)",
            "decoder.decode(type(of: value), from: data)", "decoder.decode (T.self, from: data)", "decoder.decode(T.self, from : data)",
            "decoder.`decode`(T.self, from: data)", "decoder\n    .decode(T.self, from: data)",
        ] {
            #expect(shape.contains(Self.plainDecode), "\(shape)")
        }
        #expect("data.map(decoder.decode(_:from:))".contains(Self.plainReference))
        #expect(!"data.map(decoder.decode(_:fromUntrusted:))".contains(Self.plainReference))
    }
}
