import Foundation

/// An observation with what orders it against others about the same thing.
///
/// The later assertion wins; equal assertion times break by what the observations say, then (for
/// two that say the same) by event id, so the winner is a function of the set of observations,
/// never of the order they arrived in, nor of the random ids their events got.
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

    /// Whether this observation beats `other`. On equal assertion times, `content` gives what of
    /// each is compared (all of it by default; a fold that rewrites part of a kept observation leaves
    /// that part out, or the order would depend on what arrived first).
    public func supersedes(_ other: Observed<Value>, comparing content: (Value) -> Value = { $0 }) -> Bool {
        guard assertedAt == other.assertedAt else { return assertedAt > other.assertedAt }
        let (mine, theirs) = (content(value), content(other.value))
        if mine != theirs, let greater = Self.isGreater(mine, than: theirs) { return greater }
        return eventID > other.eventID
    }

    /// Orders two observations asserted at the same moment that say different things, by their JSON
    /// (keys sorted), or nil if that cannot tell them apart. By event id alone, renewal infos Apple
    /// signed in one millisecond (auto-renew off, then on) gave a different state in two ledgers
    /// fed the same notifications in the same order (domain walkthrough). Only ties pay for this.
    private static func isGreater(_ lhs: Value, than rhs: Value) -> Bool? {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let left = try? encoder.encode(lhs), let right = try? encoder.encode(rhs), left != right else { return nil }
        return right.lexicographicallyPrecedes(left)
    }
}
