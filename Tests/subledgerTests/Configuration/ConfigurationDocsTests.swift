import Foundation
import Testing
@testable import subledger

@Suite("Docs match the code")
struct ConfigurationDocsTests {
    @Test func operationsGuideListsEveryConfigurationKeyAndItsVariable() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let guide = try String(contentsOf: root.appendingPathComponent("docs/operations.md"), encoding: .utf8)
        for key in ConfigurationKey.all {
            #expect(guide.contains("`\(key.path)`"), "docs/operations.md does not list \(key.path)")
            #expect(guide.contains("`\(key.environmentName)`"), "docs/operations.md does not list \(key.environmentName)")
        }
    }
}
