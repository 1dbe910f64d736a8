/// Why a transaction happened: a customer purchase or an automatic renewal.
///
/// Distinguishes the first period of a subscription from later renewals. An open set: values this library does not list decode unchanged into ``rawValue``.
public struct TransactionReason: RawRepresentable, Codable, Hashable, Sendable, CustomStringConvertible {
    /// The value exactly as Apple sends it.
    public var rawValue: String

    /// Wraps any value, including ones this library does not know yet.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// The raw value as text.
    public var description: String { rawValue }

    /// `PURCHASE`.
    public static let purchase = TransactionReason(rawValue: "PURCHASE")
    /// `RENEWAL`.
    public static let renewal = TransactionReason(rawValue: "RENEWAL")
}
