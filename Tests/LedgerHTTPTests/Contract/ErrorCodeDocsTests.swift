import AppStore
import EventStore
import Foundation
import Ledger
@testable import LedgerHTTP
import Testing

/// Every stable `code` the source defines for the API is in `docs/api.md`'s table of error codes,
/// with the status the server answers it with, and in `openapi.yaml`'s description of `code`: a
/// backend engineer branches on these, so a new one must not appear undocumented.
@Suite("docs/api.md lists every error code")
struct ErrorCodeDocsTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// The receipt parser's codes: the library's, not the API's (the service sends receipts to verifyReceipt).
    static let notServed: Set<String> = ["empty_receipt", "not_a_receipt", "malformed_receipt"]

    /// `code → status` for the rows of api.md's "Error codes" table.
    static func table() throws -> [String: Int] {
        let text = try String(contentsOf: root.appendingPathComponent("docs/api.md"), encoding: .utf8)
        let section = try #require(text.components(separatedBy: "## Error codes").dropFirst().first?.components(separatedBy: "\n## ").first)
        var rows: [String: Int] = [:]
        for line in section.split(separator: "\n") where line.hasPrefix("| ") {
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 2, let status = Int(cells[0]), cells[1].hasPrefix("`") else { continue }
            rows[cells[1].trimmingCharacters(in: CharacterSet(charactersIn: "`"))] = status
        }
        return rows
    }

    /// The quoted strings of `pattern`'s first capture in the Swift files under `folder`.
    static func codes(in folder: String, matching pattern: String) throws -> Set<String> {
        let regex = try NSRegularExpression(pattern: pattern)
        var found: Set<String> = []
        let files = FileManager.default.enumerator(atPath: root.appendingPathComponent(folder).path)
        while let file = files?.nextObject() as? String {
            guard file.hasSuffix(".swift") else { continue }
            let text = try String(contentsOf: root.appendingPathComponent(folder).appendingPathComponent(file), encoding: .utf8)
            for match in regex.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                if let range = Range(match.range(at: 1), in: text) { found.insert(String(text[range])) }
            }
        }
        return found
    }

    @Test func everyCodeTheSourceDefinesIsInTheTableAndTheSpec() throws {
        let table = try Self.table()
        let appStore = try Self.codes(in: "Sources/AppStore/Errors", matching: #"Code\(rawValue: "([a-z_]+)"\)"#)
        let ledger = try Self.codes(in: "Sources/Ledger/Errors", matching: #"Code\("([a-z_]+)"\)"#)
        let http = try Self.codes(in: "Sources/LedgerHTTP", matching: #"code: "([a-z_]+)""#)
        #expect(appStore.count > 15 && ledger.count > 5 && http.count > 10, "the patterns no longer find the codes")

        // The verifier's codes as the API answers them (two are renamed: input_too_large, invalid_response).
        var answered: [String: Int] = [:]
        for raw in appStore.subtracting(Self.notServed) {
            let problem = Problem(AppStoreError(AppStoreError.Code(rawValue: raw), "x"))
            answered[problem.code] = problem.statusCode
        }
        for (code, status) in answered {
            #expect(table[code] == status, "\(code) is answered \(status); the table says \(table[code].map(String.init) ?? "nothing")")
        }
        // The ledger's and the store's codes as the API answers them. Their initialisers are private,
        // so each is named here; the first check fails when the source defines one not named.
        let ledgerErrors: [LedgerError.Code] = [
            .malformedBody, .invalidPassword, .unknownApp, .environmentNotAccepted, .bundleMismatch, .linkConflict,
            .invalidReceipt, .sharedSecretRejected, .bundleIdRequired, .unknownEntitlement, .receiptValidationUnavailable,
            .unreadableEvent, .unknownGrant, .grantEnded,
        ]
        #expect(Set(ledgerErrors.map(\.rawValue)) == ledger, "name every LedgerError code here")
        let storeErrors: [EventStoreError.Code] = [
            .versionConflict, .invalidEvent, .storageUnavailable, .migrationChecksumMismatch, .unknownMigration,
            .checkpointConflict, .invalidDatabaseURL, .writeRace, .databaseError, .rebuildOutdated,
            .rebuildBlocked,
        ]
        let store = try Self.codes(in: "Sources/EventStore/Errors", matching: #"Code\("([a-z_]+)"\)"#)
        #expect(Set(storeErrors.map(\.rawValue)) == store, "name every EventStoreError code here")
        let problems = ledgerErrors.map { Problem(LedgerError($0, "x")) } + storeErrors.map { Problem(EventStoreError($0, "x")) }
        for problem in problems {
            #expect(table[problem.code] == problem.statusCode, "\(problem.code) is answered \(problem.statusCode); the table says \(table[problem.code].map(String.init) ?? "nothing")")
        }
        for code in http {
            #expect(table[code] != nil, "\(code) is not in docs/api.md's table of error codes")
        }

        // The description of Problem's `code`, not the whole spec: a code named only in a route's
        // summary is not listed where a client looks up what a code means.
        let spec = try String(contentsOf: Self.root.appendingPathComponent("docs/openapi.yaml"), encoding: .utf8)
        let start = try #require(spec.range(of: "Stable snake_case code."))
        let end = try #require(spec.range(of: "docs/api.md has a table of them all.", range: start.upperBound..<spec.endIndex))
        let description = spec[start.upperBound..<end.lowerBound]
        for code in table.keys {
            #expect(description.contains(code), "\(code) is not in openapi.yaml's description of code")
        }
    }
}
