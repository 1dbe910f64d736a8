import AppStore
import EventStore
import Foundation
import HTTPTypes
import Logging
import Ledger
import Testing

@testable import LedgerHTTP

/// Every typed error reaches the client with a stable code and the status that says whose fault it
/// is: the input's (4xx, and a webhook files it as a rejection), the server's (500), or a dependency's
/// that a retry may fix (502, 503).
struct ProblemMappingTests {
    /// Titles are sentence case, with names written as names.
    @Test(arguments: [
        ("invalid_signature", "Invalid signature"), ("app_apple_id_mismatch", "App Apple ID mismatch"),
        ("apple_unavailable", "Apple unavailable"), ("missing_apple_extension", "Missing Apple extension"),
    ])
    func aCodesTitleIsSentenceCaseWithNamesAsNames(code: String, title: String) {
        #expect(Problem.title(code) == title)
    }

    @Test(arguments: [
        (AppStoreError(.invalidSignature, "x") as any Error, 400, "invalid_signature"),
        (AppStoreError(.malformedBody, "x"), 400, "malformed_body"),
        (AppStoreError(.inputTooLarge, "x"), 413, "payload_too_large"),
        (AppStoreError(.invalidConfiguration, "x"), 500, "invalid_configuration"),
        (AppStoreError(.invalidTrustAnchor, "x"), 500, "invalid_trust_anchor"),
        (AppStoreError(.appleUnavailable, "x"), 502, "apple_unavailable"),
        (LedgerError(.invalidPassword, "x"), 400, "invalid_password"),
        (LedgerError(.linkConflict, "x"), 409, "link_conflict"),
        (LedgerError(.unknownEntitlement, "x"), 400, "unknown_entitlement"),
        (LedgerError(.unreadableEvent, "x"), 500, "internal_error"),
        (EventStoreError(.storageUnavailable, "x"), 503, "storage_unavailable"),
    ])
    func errorsMapToAStatusAndAStableCode(error: any Error, status: Int, code: String) {
        let problem = Problem(error)
        #expect(problem.statusCode == status)
        #expect(problem.code == code)
        #expect(problem.type == "https://subledger.dev/problems/\(code)")
    }

    /// One `type`, one title, whichever layer refused the input: a body the verifier could not read
    /// was titled "Verification failed" while the same code from the decoder was "Malformed body".
    @Test func aCodeHasOneTitleWhereverItComesFrom() {
        let malformed = [
            Problem(AppStoreError(.malformedBody, "x")),
            Problem.malformedBody(DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "x")), body: Data("{".utf8)),
            Problem(EventStoreError(.invalidEvent, "x")),
        ]
        #expect(Set(malformed.map(\.code)) == ["malformed_body"])
        #expect(Set(malformed.map(\.title)) == ["Malformed body"])
        #expect(Problem(AppStoreError(.invalidSignature, "x")).title == "Invalid signature")
        #expect(Problem(EventStoreError(.versionConflict, "x")).title == "Version conflict")
    }

    /// A refused extra feed stream is a limit at work, logged as a warning, not as the server's
    /// error (operator walkthrough: alerts on error lines fired for it).
    @Test func aRefusedFeedStreamIsLoggedAsAWarningNotAnError() {
        let level = { (status: HTTPResponse.Status, code: String) in
            ProblemMiddleware<LedgerRequestContext>.logLevel(of: Problem(status: status, code: code, title: "t", detail: "d"))
        }
        #expect(ProblemMiddleware<LedgerRequestContext>.logLevel(of: .tooManyStreams(maximum: 64)) == .warning)
        #expect(level(.serviceUnavailable, "storage_unavailable") == .error)
        #expect(level(.badRequest, "malformed_body") == .info)
    }
}
