import Foundation

/// A chain's status at a moment, with the facts that explain it.
public struct ChainEvaluation: Hashable, Sendable {
    public var originalTransactionId: String
    public var status: ChainStatus
    /// The product of the governing transaction.
    public var productId: String
    /// The governing transaction.
    public var latestTransactionId: String
    public var productType: String
    /// When access ends (nil for a lifetime purchase).
    public var expiresAt: Date?
    public var gracePeriodExpiresAt: Date?
    public var willRenew: Bool
    /// The product the chain renews to; differs from `productId` after a downgrade or crossgrade.
    public var renewsToProductId: String?
    public var environment: String
    /// `purchased` or `family_shared`.
    public var ownership: String
    public var purchasedAt: Date
    public var revokedAt: Date?
    public var revocationReason: Int?
    /// The app the chain was bought in, as Apple's data named it (nil if none of its sources did).
    public var bundleId: String? = nil

    /// Whether the chain gives access at the evaluated moment.
    public var hasAccess: Bool { status.hasAccess }
}
