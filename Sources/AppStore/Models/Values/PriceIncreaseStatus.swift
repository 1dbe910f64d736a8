/// Whether the customer consented to a subscription price increase (`priceIncreaseStatus`).
///
/// A subscription whose customer did not consent will expire at the price change. An open set: values this library does not list decode unchanged into ``rawValue``.
public struct PriceIncreaseStatus: RawRepresentable, Codable, Hashable, Sendable, CustomStringConvertible {
    /// The value exactly as Apple sends it.
    public var rawValue: Int

    /// Wraps any value, including ones this library does not know yet.
    public init(rawValue: Int) {
        self.rawValue = rawValue
    }

    /// The raw value as text.
    public var description: String { String(rawValue) }

    /// `0`.
    public static let customerHasNotResponded = PriceIncreaseStatus(rawValue: 0)
    /// `1`.
    public static let customerConsentedOrWasNotifiedWithoutNeedingConsent = PriceIncreaseStatus(rawValue: 1)
}
