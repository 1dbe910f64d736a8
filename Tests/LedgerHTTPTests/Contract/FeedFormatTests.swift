@testable import LedgerHTTP
import Testing

/// `GET /v1/events` streams NDJSON only when the client prefers it: media types are compared without
/// case, and quality values are honoured.
struct FeedFormatTests {
    @Test(arguments: [
        ("application/x-ndjson", FeedFormat.ndjson),
        ("APPLICATION/X-NDJSON", .ndjson),
        ("application/x-ndjson, */*;q=0.1", .ndjson),
        ("application/json;q=0.5, application/x-ndjson", .ndjson),
        ("application/json, application/x-ndjson;q=0.5", .page),
        ("application/x-ndjson;q=0", .page),
        ("application/json", .page),
        ("*/*", .page),
        ("", .page),
    ])
    func theHeaderPicksTheForm(_ accept: String, _ expected: FeedFormat) {
        #expect(FeedFormat(accept: accept) == expected)
    }

    @Test func noHeaderIsAPage() {
        #expect(FeedFormat(accept: nil) == .page)
    }
}
