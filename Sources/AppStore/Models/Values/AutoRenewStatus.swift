/// Whether a subscription will renew at the end of its period (`autoRenewStatus`).
///
/// Drives the 'will cancel' state of a subscription. An open set: values this library does not list decode unchanged into ``rawValue``.
public struct AutoRenewStatus: RawRepresentable, Codable, Hashable, Sendable, CustomStringConvertible {
    /// The value exactly as Apple sends it.
    public var rawValue: Int

    /// Wraps any value, including ones this library does not know yet.
    public init(rawValue: Int) {
        self.rawValue = rawValue
    }

    /// The raw value as text.
    public var description: String { String(rawValue) }

    /// `0`.
    public static let off = AutoRenewStatus(rawValue: 0)
    /// `1`.
    public static let on = AutoRenewStatus(rawValue: 1)
}
