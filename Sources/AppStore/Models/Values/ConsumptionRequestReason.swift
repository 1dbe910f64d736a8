/// Why the customer requested the refund that triggered a `CONSUMPTION_REQUEST`.
///
/// Lets the service answer the consumption request with the right context. An open set: values this library does not list decode unchanged into ``rawValue``.
public struct ConsumptionRequestReason: RawRepresentable, Codable, Hashable, Sendable, CustomStringConvertible {
    /// The value exactly as Apple sends it.
    public var rawValue: String

    /// Wraps any value, including ones this library does not know yet.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// The raw value as text.
    public var description: String { rawValue }

    /// `UNINTENDED_PURCHASE`.
    public static let unintendedPurchase = ConsumptionRequestReason(rawValue: "UNINTENDED_PURCHASE")
    /// `FULFILLMENT_ISSUE`.
    public static let fulfillmentIssue = ConsumptionRequestReason(rawValue: "FULFILLMENT_ISSUE")
    /// `UNSATISFIED_WITH_PURCHASE`.
    public static let unsatisfiedWithPurchase = ConsumptionRequestReason(rawValue: "UNSATISFIED_WITH_PURCHASE")
    /// `LEGAL`.
    public static let legal = ConsumptionRequestReason(rawValue: "LEGAL")
    /// `OTHER`.
    public static let other = ConsumptionRequestReason(rawValue: "OTHER")
}
