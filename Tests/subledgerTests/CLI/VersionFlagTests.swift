import Foundation
import Testing

@testable import subledger

/// `subledger --version`, so a report or a bug can say which build it came from.
@Suite("subledger --version")
struct VersionFlagTests {
    @Test func theVersionIsPrintedAloneOnStandardOutput() async throws {
        try await withTemporaryDirectory { directory in
            let result = try await SubledgerProcess.run(["--version"], in: directory)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout == "\(SubledgerVersion.current)\n")
            // Three dotted numbers, so scripts can compare builds.
            #expect(SubledgerVersion.current.split(separator: ".").count == 3)
            #expect(SubledgerVersion.current.split(separator: ".").allSatisfy { Int($0) != nil })
        }
    }
}
