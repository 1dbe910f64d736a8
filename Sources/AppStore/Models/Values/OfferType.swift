/// The kind of offer a transaction or renewal uses (introductory, promotional, offer code, win-back).
///
/// Offers change the price and sometimes the eligibility of a period. An open set: values this library does not list decode unchanged into ``rawValue``.
public struct OfferType: RawRepresentable, Codable, Hashable, Sendable, CustomStringConvertible {
    /// The value exactly as Apple sends it.
    public var rawValue: Int

    /// Wraps any value, including ones this library does not know yet.
    public init(rawValue: Int) {
        self.rawValue = rawValue
    }

    /// The raw value as text.
    public var description: String { String(rawValue) }

    /// `1`.
    public static let introductory = OfferType(rawValue: 1)
    /// `2`.
    public static let promotional = OfferType(rawValue: 2)
    /// `3`.
    public static let subscriptionOfferCode = OfferType(rawValue: 3)
    /// `4`.
    public static let winBack = OfferType(rawValue: 4)
}
