import Foundation
import Synchronization

/// A clock moved by hand: for tests and what-if evaluations that step through time.
public final class ManualClock: LedgerClock {
    private let instant: Mutex<Date>

    /// Creates a clock stopped at `start`.
    public init(_ start: Date) { instant = Mutex(start) }

    public func now() -> Date { instant.withLock { $0 } }

    /// Moves the clock to `date`.
    public func set(_ date: Date) { instant.withLock { $0 = date } }
}
