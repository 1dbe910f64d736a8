/// Who owns a chain now.
public struct OwnerDocument: Codable, Hashable, Sendable {
    public var userId: String
}
