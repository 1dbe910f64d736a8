import Foundation

/// A clock that always answers the same instant, for tests and as-of evaluations.
public struct FixedClock: LedgerClock {
    /// The instant this clock answers.
    public var instant: Date

    /// Creates a clock stopped at `instant`.
    public init(_ instant: Date) { self.instant = instant }

    public func now() -> Date { instant }
}
