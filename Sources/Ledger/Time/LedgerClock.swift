import Foundation

/// The domain's source of "now": entitlement status depends on time, so time is passed in, never read
/// deep inside (no `Date()` in folds or evaluations).
public protocol LedgerClock: Sendable {
    /// The current instant.
    func now() -> Date
}
