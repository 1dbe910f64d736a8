import Ledger
import Testing

/// The user id rule (1 to 256 code points in NFC, no control characters) holds on its ASCII fast path and on
/// the Unicode one: each list has ids of both kinds at and past every limit. Code points, not
/// characters: one character may hold any number of combining marks, and so any number of bytes.
@Suite("User id rule")
struct UserIdRuleTests {
    @Test(arguments: [
        "u1", "alice@example.com", String(repeating: "x", count: 256), " ", "~",
        "é", String(repeating: "é", count: 256), "\u{E9}", "caf\u{E9}", "x\u{301}", "x\u{323}\u{301}", "x" + String(repeating: "\u{301}", count: 255), "ユーザー", "👩‍👩‍👧",
    ])
    func accepted(_ id: String) {
        #expect(SubscriptionLedger.isUserId(id))
    }

    @Test(arguments: [
        "", String(repeating: "x", count: 257), "a\u{0}b", "a\u{1}b", "tab\there", "line\n", "del\u{7F}",
        String(repeating: "é", count: 257), String(repeating: "e\u{301}", count: 129),
        // Not NFC: a decomposed é, and marks out of canonical order (NFC puts a mark below first).
        "e\u{301}", "cafe\u{301}", "x\u{301}\u{323}",
        // NFC (x has no precomposed form with an acute) but 257 code points in one character.
        "x" + String(repeating: "\u{301}", count: 256),
        "a" + String(repeating: "\u{301}", count: 300), "é\u{1}", "é\u{7F}", "next\u{85}line", "c1\u{9F}",
    ])
    func refused(_ id: String) {
        #expect(!SubscriptionLedger.isUserId(id))
    }
}
