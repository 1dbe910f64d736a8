/// The text of another library's error, fit for a client: swift-asn1's and swift-certificates'
/// descriptions end with the Swift file and line that threw, which would show a client (and the
/// rejections table) the build's source paths and change with every release of the library.
enum LibraryErrorText {
    /// `error`'s description without a trailing ` <path>.swift:<line>`.
    static func describe(_ error: any Error) -> String {
        let text = "\(error)"
        guard let lastSpace = text.lastIndex(of: " ") else { return text }
        let location = text[text.index(after: lastSpace)...]
        guard let colon = location.lastIndex(of: ":") else { return text }
        let file = location[..<colon]
        let line = location[location.index(after: colon)...]
        guard file.hasSuffix(".swift"), !line.isEmpty, line.allSatisfy({ $0.isASCII && $0.isNumber }) else { return text }
        // An error with no reason of its own leaves `Name: ` before the location.
        var kept = text[..<lastSpace]
        while let last = kept.last, last == " " || last == ":" { kept.removeLast() }
        return String(kept)
    }
}
