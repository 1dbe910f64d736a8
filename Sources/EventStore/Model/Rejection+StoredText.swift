import Foundation

extension Rejection {
    /// The most of a refused body a rejection keeps: 64 KiB, the most of a signed input the server
    /// parses, so every body it could have refused for its contents is kept whole (Apple's V2
    /// notifications are about 19 KB). Anyone can post a webhook, so with 1 MiB kept per row the
    /// 10,000 newest rows could take 10 GiB; now at most about 640 MiB.
    public static let bodyLimit = 64 << 10

    /// `text` as both stores can keep it: NUL, which PostgreSQL's text refuses and SQLite's text
    /// reading stops at, becomes U+FFFD. Anyone can post a webhook, so a refused input (and the detail
    /// that quotes it) may hold one, and its rejection must still be kept.
    static func storedText(_ text: String) -> String {
        guard text.utf8.contains(0) else { return text }
        return String(String.UnicodeScalarView(text.unicodeScalars.map { $0 == "\u{0}" ? "\u{FFFD}" : $0 }))
    }

    /// A refused body as kept: its start as UTF-8, a byte that is not UTF-8 and a NUL both as
    /// U+FFFD, at most `bodyLimit` bytes of text. Cut again after the conversion: U+FFFD takes three
    /// bytes, so 64 KiB of bytes that are not UTF-8 became 192 KiB of text, three times the bound.
    static func storedBody(_ body: Data) -> String {
        let text = storedText(String(decoding: body.prefix(bodyLimit), as: UTF8.self))
        guard text.utf8.count > bodyLimit else { return text }
        var kept = String.UnicodeScalarView()
        var size = 0
        for scalar in text.unicodeScalars {
            size += UTF8.width(scalar)
            if size > bodyLimit { break }
            kept.append(scalar)
        }
        return String(kept)
    }
}
