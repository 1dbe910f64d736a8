/// The product type of a transaction (the payload's `type` field).
///
/// Tells subscriptions from one-off purchases; unknown types are kept verbatim. An open set: values this library does not list decode unchanged into ``rawValue``.
public struct TransactionType: RawRepresentable, Codable, Hashable, Sendable, CustomStringConvertible {
    /// The value exactly as Apple sends it.
    public var rawValue: String

    /// Wraps any value, including ones this library does not know yet.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// The raw value as text.
    public var description: String { rawValue }

    /// `Auto-Renewable Subscription`.
    public static let autoRenewableSubscription = TransactionType(rawValue: "Auto-Renewable Subscription")
    /// `Non-Consumable`.
    public static let nonConsumable = TransactionType(rawValue: "Non-Consumable")
    /// `Consumable`.
    public static let consumable = TransactionType(rawValue: "Consumable")
    /// `Non-Renewing Subscription`.
    public static let nonRenewingSubscription = TransactionType(rawValue: "Non-Renewing Subscription")
}
