/// Why a subscription expired (`expirationIntent`).
///
/// Separates voluntary churn from billing failures. An open set: values this library does not list decode unchanged into ``rawValue``.
public struct ExpirationIntent: RawRepresentable, Codable, Hashable, Sendable, CustomStringConvertible {
    /// The value exactly as Apple sends it.
    public var rawValue: Int

    /// Wraps any value, including ones this library does not know yet.
    public init(rawValue: Int) {
        self.rawValue = rawValue
    }

    /// The raw value as text.
    public var description: String { String(rawValue) }

    /// `1`.
    public static let customerCancelled = ExpirationIntent(rawValue: 1)
    /// `2`.
    public static let billingError = ExpirationIntent(rawValue: 2)
    /// `3`.
    public static let didNotConsentToPriceIncrease = ExpirationIntent(rawValue: 3)
    /// `4`.
    public static let productNotAvailable = ExpirationIntent(rawValue: 4)
    /// `5`.
    public static let other = ExpirationIntent(rawValue: 5)
}
