/// The environment as the legacy APIs spell it: `Sandbox`, `Production` (verifyReceipt) or `PROD` (V1 notifications).
///
/// Kept apart from ``AppStoreEnvironment`` because `PROD` only exists here; ``appStoreEnvironment`` maps it.
public struct LegacyEnvironment: RawRepresentable, Codable, Hashable, Sendable, CustomStringConvertible {
    /// The value as Apple sent it.
    public var rawValue: String

    /// Wraps any value.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// The raw value.
    public var description: String { rawValue }

    /// `Sandbox`.
    public static let sandbox = LegacyEnvironment(rawValue: "Sandbox")
    /// `Production`, as verifyReceipt writes it.
    public static let production = LegacyEnvironment(rawValue: "Production")
    /// `PROD`, as V1 notifications write it.
    public static let prod = LegacyEnvironment(rawValue: "PROD")

    /// The JWS-era environment this maps to (`PROD` and `Production` both mean ``AppStoreEnvironment/production``).
    public var appStoreEnvironment: AppStoreEnvironment {
        switch rawValue {
        case "PROD", "Production": .production
        case "Sandbox": .sandbox
        default: AppStoreEnvironment(rawValue: rawValue)
        }
    }
}
