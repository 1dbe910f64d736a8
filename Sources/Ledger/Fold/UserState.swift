/// The fold state of one user: the chains they own and their manual grants.
///
/// Built from the user's own stream (`user.linked`, `user.unlinked`, `entitlement.*`), applying the
/// outcomes recorded at ingestion.
public struct UserState: Codable, Hashable, Sendable {
    /// A grant and, once revoked, when and why.
    public struct Grant: Codable, Hashable, Sendable {
        public var grant: ManualGrant
        public var revokedAt: Int64?
        /// The first revoke's reason (absent from documents written before it was kept; a rebuild
        /// fills it in).
        public var revokeReason: String?

        /// The grant's status at `at` (Unix milliseconds); nil before it was made. It gives access
        /// from when it was made until its end or its revoke, whichever came first: `revoked` once an
        /// operator withdrew it before its end, `expired` once it ran out.
        public func status(at: Int64) -> ChainStatus? {
            guard grant.at <= at else { return nil }
            if let revokedAt, revokedAt <= at, revokedAt < (grant.expiresAt ?? .max) { return .revoked }
            if let expiresAt = grant.expiresAt, expiresAt <= at { return .expired }
            return .active
        }
    }

    public var userId: String
    /// Owned chains, by original transaction id, with when each was linked (Unix milliseconds).
    public var chains: [String: Int64]
    /// Manual grants by grant id.
    public var grants: [String: Grant]

    /// A user with nothing.
    public init(userId: String) {
        self.userId = userId
        self.chains = [:]
        self.grants = [:]
    }

    /// Applies a link record from this user's stream.
    public mutating func apply(_ link: UserLink, at: Int64) {
        switch link.outcome {
        case .linked, .transferred:
            if chains[link.originalTransactionId] == nil { chains[link.originalTransactionId] = at }
        case .unlinked:
            chains[link.originalTransactionId] = nil
        case .rejected:
            break
        }
    }

    /// Applies a grant.
    public mutating func grant(_ grant: ManualGrant) {
        grants[grant.grantId] = Grant(grant: grant, revokedAt: nil)
    }

    /// Applies a revoke of an earlier grant (ignored if the grant is unknown). A grant revoked twice
    /// ended at the first revoke, and keeps its reason (the earlier reason on a tie, whatever the order).
    public mutating func revoke(_ revoke: ManualGrant) {
        guard let current = grants[revoke.grantId] else { return }
        // Reasons compared by their bytes: Swift's `<` holds canonically equivalent texts equal. A
        // document without a reason (written before reasons were kept) takes the revoke's.
        let isFirst = current.revokedAt.map { first in
            revoke.at < first || (revoke.at == first && current.revokeReason.map { revoke.reason.utf8.lexicographicallyPrecedes($0.utf8) } ?? true)
        } ?? true
        guard isFirst else { return }
        grants[revoke.grantId]?.revokedAt = revoke.at
        grants[revoke.grantId]?.revokeReason = revoke.reason
    }
}
