/// The limits of a request head the HTTP parser accepts; a head over any of them is answered 431
/// `headers_too_large`.
///
/// Set here rather than left to Hummingbird's defaults (the same values today), because the 431
/// answer and `docs/api.md` name them. NIO's parser counts the URL as one more field.
enum RequestHeadLimits {
    /// The largest URL or header field, name and value, in bytes.
    static let fieldBytes = 80 * 1024
    /// The largest URL and header fields together, in bytes.
    static let headBytes = 80 * 1024
    /// The most header fields a request may have.
    static let fieldCount = 1000
}
