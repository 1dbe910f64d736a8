import Foundation

/// One entitlement of a user at a moment, and the chain or grant that explains it.
public struct EntitlementStatus: Hashable, Sendable {
    /// Where the entitlement comes from.
    public enum Source: String, Hashable, Sendable {
        case appStore = "app_store"
        case grant
    }

    public var id: String
    public var active: Bool
    /// A `ChainStatus` raw value for App Store entitlements; `active` or `expired` for grants.
    public var status: String
    public var productId: String?
    public var expiresAt: Date?
    public var gracePeriodExpiresAt: Date?
    public var willRenew: Bool
    public var renewsToProductId: String?
    public var originalTransactionId: String?
    public var environment: String?
    public var ownership: String?
    public var purchasedAt: Date?
    public var revokedAt: Date?
    public var revocationReason: Int?
    public var source: Source
}
