/// Why Apple refunded or revoked a transaction (`revocationReason`).
///
/// An app-issue refund may call for support follow-up; unknown reasons are kept. An open set: values this library does not list decode unchanged into ``rawValue``.
public struct RevocationReason: RawRepresentable, Codable, Hashable, Sendable, CustomStringConvertible {
    /// The value exactly as Apple sends it.
    public var rawValue: Int

    /// Wraps any value, including ones this library does not know yet.
    public init(rawValue: Int) {
        self.rawValue = rawValue
    }

    /// The raw value as text.
    public var description: String { String(rawValue) }

    /// `0`.
    public static let other = RevocationReason(rawValue: 0)
    /// `1`.
    public static let appIssue = RevocationReason(rawValue: 1)
}
