/// The payment mode of the offer applied to a transaction or renewal.
///
/// Free trials and paid introductory offers are reported differently. An open set: values this library does not list decode unchanged into ``rawValue``.
public struct OfferDiscountType: RawRepresentable, Codable, Hashable, Sendable, CustomStringConvertible {
    /// The value exactly as Apple sends it.
    public var rawValue: String

    /// Wraps any value, including ones this library does not know yet.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// The raw value as text.
    public var description: String { rawValue }

    /// `FREE_TRIAL`.
    public static let freeTrial = OfferDiscountType(rawValue: "FREE_TRIAL")
    /// `PAY_AS_YOU_GO`.
    public static let payAsYouGo = OfferDiscountType(rawValue: "PAY_AS_YOU_GO")
    /// `PAY_UP_FRONT`.
    public static let payUpFront = OfferDiscountType(rawValue: "PAY_UP_FRONT")
    /// `ONE_TIME`.
    public static let oneTime = OfferDiscountType(rawValue: "ONE_TIME")
}
