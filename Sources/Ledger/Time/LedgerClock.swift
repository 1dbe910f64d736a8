import Foundation

/// The domain's source of "now": entitlement status depends on time, so time is passed in, never read
/// deep inside (no `Date()` in folds or evaluations).
public protocol LedgerClock: Sendable {
    /// The current instant.
    func now() -> Date
}

/// The wall clock, for the running service.
public struct SystemClock: LedgerClock {
    /// Creates a wall clock.
    public init() {}

    public func now() -> Date { Date() }
}

/// A clock that always answers the same instant, for tests and as-of evaluations.
public struct FixedClock: LedgerClock {
    /// The instant this clock answers.
    public var instant: Date

    /// Creates a clock stopped at `instant`.
    public init(_ instant: Date) { self.instant = instant }

    public func now() -> Date { instant }
}
