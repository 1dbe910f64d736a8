/// How a refunded or revoked transaction was revoked (full, prorated, family).
///
/// A prorated refund ends access at a different time than a full one. An open set: values this library does not list decode unchanged into ``rawValue``.
public struct RevocationType: RawRepresentable, Codable, Hashable, Sendable, CustomStringConvertible {
    /// The value exactly as Apple sends it.
    public var rawValue: String

    /// Wraps any value, including ones this library does not know yet.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// The raw value as text.
    public var description: String { rawValue }

    /// `REFUND_FULL`.
    public static let refundFull = RevocationType(rawValue: "REFUND_FULL")
    /// `REFUND_PRORATED`.
    public static let refundProrated = RevocationType(rawValue: "REFUND_PRORATED")
    /// `FAMILY_REVOKE`.
    public static let familyRevoke = RevocationType(rawValue: "FAMILY_REVOKE")
}
