import Foundation

/// A webhook input that was refused, kept so operators can see what Apple (or an impostor) sent.
public struct Rejection: Sendable, Hashable {
    public var receivedAt: Date
    public var source: String
    /// The stable error code it was refused with.
    public var code: String
    public var detail: String
    /// The body as received, with U+FFFD for a byte that is not UTF-8 and for NUL (which neither
    /// store's text keeps), cut to at most 64 KiB of text (`Rejection.bodyLimit`).
    public var body: String
    /// The request id the refusal was answered with (`X-Request-ID`), which its log lines carry;
    /// nil for a refusal kept before the store had the column, or by an older build still serving.
    public var requestID: String?

    /// Creates a rejection record.
    public init(receivedAt: Date, source: String, code: String, detail: String, body: String, requestID: String? = nil) {
        self.receivedAt = receivedAt
        self.source = source
        self.code = code
        self.detail = detail
        self.body = body
        self.requestID = requestID
    }
}
