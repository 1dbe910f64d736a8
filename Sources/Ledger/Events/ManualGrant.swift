/// The body of `entitlement.granted` and `entitlement.revoked`: promotional access set by an operator.
public struct ManualGrant: Codable, Hashable, Sendable {
    /// Identifies the grant, so a revoke names exactly one.
    public var grantId: String
    public var userId: String
    public var entitlement: String
    /// When the grant ends (Unix milliseconds); nil for a revoke.
    public var expiresAt: Int64?
    public var reason: String
    /// When the operator made the grant or revoke (Unix milliseconds).
    public var at: Int64

    /// Creates a grant or revoke record.
    public init(grantId: String, userId: String, entitlement: String, expiresAt: Int64?, reason: String, at: Int64) {
        self.grantId = grantId
        self.userId = userId
        self.entitlement = entitlement
        self.expiresAt = expiresAt
        self.reason = reason
        self.at = at
    }
}
