/// The platform on which the customer originally bought the app (`originalPlatform`).
///
/// Informational; unknown platforms are kept verbatim. An open set: values this library does not list decode unchanged into ``rawValue``.
public struct PurchasePlatform: RawRepresentable, Codable, Hashable, Sendable, CustomStringConvertible {
    /// The value exactly as Apple sends it.
    public var rawValue: String

    /// Wraps any value, including ones this library does not know yet.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// The raw value as text.
    public var description: String { rawValue }

    /// `iOS`.
    public static let iOS = PurchasePlatform(rawValue: "iOS")
    /// `macOS`.
    public static let macOS = PurchasePlatform(rawValue: "macOS")
    /// `tvOS`.
    public static let tvOS = PurchasePlatform(rawValue: "tvOS")
    /// `visionOS`.
    public static let visionOS = PurchasePlatform(rawValue: "visionOS")
}
