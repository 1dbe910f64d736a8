/// Where a subscription chain stands at a moment.
public enum ChainStatus: String, Codable, Hashable, Sendable, CaseIterable {
    /// Paid up: the governing transaction has not expired.
    case active
    /// Expired, but Apple keeps access during its billing grace period.
    case gracePeriod = "grace_period"
    /// Expired and Apple is retrying the charge; no access.
    case billingRetry = "billing_retry"
    /// Ended: not renewed, or a consumable that grants nothing.
    case expired
    /// Apple refunded the governing transaction.
    case refunded
    /// Family sharing was revoked for this user.
    case revoked

    /// Whether this status gives access to what the product grants.
    public var hasAccess: Bool { self == .active || self == .gracePeriod }
}
