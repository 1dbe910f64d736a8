/// The outcome of revoking a manual grant: the grant, and when and why it was revoked.
///
/// A second revoke of the same grant records nothing and answers the first (`isDuplicate`), so an
/// operator's retry cannot add a second fact or move the end of the grant.
public struct GrantRevocation: Sendable, Hashable {
    /// The grant as it was made.
    public var grant: ManualGrant
    /// When the grant was revoked (Unix milliseconds).
    public var revokedAt: Int64
    /// Why the operator revoked it.
    public var reason: String
    /// Whether the grant had already been revoked, so nothing was recorded.
    public var isDuplicate: Bool

    /// Creates an outcome.
    public init(grant: ManualGrant, revokedAt: Int64, reason: String, isDuplicate: Bool) {
        self.grant = grant
        self.revokedAt = revokedAt
        self.reason = reason
        self.isDuplicate = isDuplicate
    }
}
