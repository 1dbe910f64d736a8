/// An observation with what orders it against others about the same thing.
///
/// The later assertion wins; equal assertion times break by event id, so the winner is a function of
/// the set of observations, never of the order they arrived in.
public struct Observed<Value: Codable & Hashable & Sendable>: Codable, Hashable, Sendable {
    public var value: Value
    public var assertedAt: Int64
    public var eventID: String

    /// Wraps an observation.
    public init(_ value: Value, assertedAt: Int64, eventID: String) {
        self.value = value
        self.assertedAt = assertedAt
        self.eventID = eventID
    }

    /// Whether this observation beats `other`.
    public func supersedes(_ other: Observed<Value>) -> Bool {
        (assertedAt, eventID) > (other.assertedAt, other.eventID)
    }
}
