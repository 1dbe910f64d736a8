import Foundation

/// The wall clock, for the running service.
public struct SystemClock: LedgerClock {
    /// Creates a wall clock.
    public init() {}

    public func now() -> Date { Date() }
}
