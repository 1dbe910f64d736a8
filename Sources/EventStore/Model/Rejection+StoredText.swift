import Foundation

extension Rejection {
    /// The most of a refused body a rejection keeps.
    static let bodyLimit = 1 << 20

    /// `text` as both stores can keep it: NUL, which PostgreSQL's text refuses and SQLite's text
    /// reading stops at, becomes U+FFFD. Anyone can post a webhook, so a refused input (and the detail
    /// that quotes it) may hold one, and its rejection must still be kept.
    static func storedText(_ text: String) -> String {
        guard text.utf8.contains(0) else { return text }
        return String(String.UnicodeScalarView(text.unicodeScalars.map { $0 == "\u{0}" ? "\u{FFFD}" : $0 }))
    }

    /// A refused body as kept: its first `bodyLimit` bytes as UTF-8, a byte that is not UTF-8 and a
    /// NUL both as U+FFFD.
    static func storedBody(_ body: Data) -> String {
        storedText(String(decoding: body.prefix(bodyLimit), as: UTF8.self))
    }
}
