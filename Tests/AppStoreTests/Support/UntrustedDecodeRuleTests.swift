import Foundation
import Testing

/// Foundation's `JSONDecoder` traps on some broken text (see `JSONDecoder+Untrusted.swift`), so every
/// decode in the package's sources goes through `decode(_:fromUntrusted:)`. This reads the sources and
/// fails on a plain `decode(_:from:)` anywhere but inside the guard itself, so a new call site cannot
/// bring the crash back unnoticed.
@Suite struct UntrustedDecodeRuleTests {
    /// A `decode(` call whose second argument is labelled `from:`, across line breaks: the shape of
    /// `JSONDecoder.decode(_:from:)` (and of `PropertyListDecoder`'s). `decode(from:)` helpers of our
    /// own documents and `Base64.decode(_:)` do not match.
    /// Not `\b`: Swift's default word boundaries follow Unicode's, where `decoder.decode` is one word.
    private static var plainDecode: Regex<Substring> { #/(?:^|[^A-Za-z0-9_])decode\(\s*[^(),]+,\s*from:/# }

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
            for match in file.text.matches(of: Self.plainDecode) {
                if file.path == Self.guardFile {
                    guardCalls += 1
                    continue
                }
                let line = file.text[..<match.range.lowerBound].reduce(1) { $1 == "\n" ? $0 + 1 : $0 }
                offenders.append("\(file.path):\(line): \(file.text[match.range])")
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
    }
}
