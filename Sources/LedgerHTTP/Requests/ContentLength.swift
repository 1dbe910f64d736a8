/// A request's `Content-Length`, read as the HTTP parser reads it.
///
/// The channel (which withholds `100 Continue`) and the routes (which answer 413 from the head)
/// both judge a body by it, so they read it the same way: one whole number, with the spaces and tabs
/// around it not part of it (RFC 9110 §5.5). The parser refuses a second `Content-Length` before
/// either sees the head; one repeated unchanged is still read as one, should a parser let it pass.
struct ContentLength: Sendable, Equatable {
    /// The declared length in bytes; digits past `Int`'s range are `Int.max`, over any limit.
    let bytes: Int
    /// The value as the client wrote it, without the blanks around it, for a refusal to repeat.
    let text: Substring

    /// Reads the values of a request's `Content-Length` fields: nil without one, or when they are
    /// not one whole number (the HTTP parser refuses such a head before any route sees it).
    init?(_ values: some Collection<String>) {
        let trimmed = values.map(Self.trimmed)
        guard let first = trimmed.first, trimmed.allSatisfy({ $0 == first }), !first.isEmpty,
              first.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
        else { return nil }
        self.bytes = Int(first) ?? Int.max
        self.text = first
    }

    /// A header value without the spaces and tabs around it.
    static func trimmed(_ value: String) -> Substring {
        let isBlank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        let start = value.firstIndex { !isBlank($0) } ?? value.endIndex
        let end = value.lastIndex { !isBlank($0) }.map { value.index(after: $0) } ?? start
        return value[start..<max(start, end)]
    }
}
