/// The App Store environment a payload was produced in (`Sandbox`, `Production`, `Xcode`, `LocalTesting`).
///
/// The verifier accepts a payload only in the environments configured for its app. An open set: values this library does not list decode unchanged into ``rawValue``.
public struct AppStoreEnvironment: RawRepresentable, Codable, Hashable, Sendable, CustomStringConvertible {
    /// The value exactly as Apple sends it.
    public var rawValue: String

    /// Wraps any value, including ones this library does not know yet.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// The raw value as text.
    public var description: String { rawValue }

    /// `Sandbox`.
    public static let sandbox = AppStoreEnvironment(rawValue: "Sandbox")
    /// `Production`.
    public static let production = AppStoreEnvironment(rawValue: "Production")
    /// `Xcode`.
    public static let xcode = AppStoreEnvironment(rawValue: "Xcode")
    /// `LocalTesting`.
    public static let localTesting = AppStoreEnvironment(rawValue: "LocalTesting")

    /// Every environment Apple documents, in the order configuration and help text name them.
    public static let known: [AppStoreEnvironment] = [.production, .sandbox, .xcode, .localTesting]
}
