import Foundation

/// What a user may use at a moment: the answer backend services read.
public struct UserEntitlements: Hashable, Sendable {
    public var userId: String
    /// The moment status was evaluated at.
    public var evaluatedAt: Date
    /// For as-of queries: the recorded time the ledger's knowledge was cut at.
    public var asOf: Date?
    /// Every entitlement the user has ever had, active or not, by id.
    public var entitlements: [EntitlementStatus]
    /// Every chain the user owns, evaluated.
    public var subscriptions: [ChainEvaluation]
    /// The highest event position the view reflects.
    public var position: Int64
}
