/// Whether the customer bought the product or has it through Family Sharing.
///
/// Family-shared entitlements are revoked differently from purchased ones. An open set: values this library does not list decode unchanged into ``rawValue``.
public struct InAppOwnershipType: RawRepresentable, Codable, Hashable, Sendable, CustomStringConvertible {
    /// The value exactly as Apple sends it.
    public var rawValue: String

    /// Wraps any value, including ones this library does not know yet.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// The raw value as text.
    public var description: String { rawValue }

    /// `FAMILY_SHARED`.
    public static let familyShared = InAppOwnershipType(rawValue: "FAMILY_SHARED")
    /// `PURCHASED`.
    public static let purchased = InAppOwnershipType(rawValue: "PURCHASED")
}
