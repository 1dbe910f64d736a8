/// The status of a subscription as stated in a notification's `data.status`.
///
/// A quick cross-check of the state the ledger derives from the transactions. An open set: values this library does not list decode unchanged into ``rawValue``.
public struct SubscriptionStatus: RawRepresentable, Codable, Hashable, Sendable, CustomStringConvertible {
    /// The value exactly as Apple sends it.
    public var rawValue: Int

    /// Wraps any value, including ones this library does not know yet.
    public init(rawValue: Int) {
        self.rawValue = rawValue
    }

    /// The raw value as text.
    public var description: String { String(rawValue) }

    /// `1`.
    public static let active = SubscriptionStatus(rawValue: 1)
    /// `2`.
    public static let expired = SubscriptionStatus(rawValue: 2)
    /// `3`.
    public static let billingRetry = SubscriptionStatus(rawValue: 3)
    /// `4`.
    public static let billingGracePeriod = SubscriptionStatus(rawValue: 4)
    /// `5`.
    public static let revoked = SubscriptionStatus(rawValue: 5)
}
