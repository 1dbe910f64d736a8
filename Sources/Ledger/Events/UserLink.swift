/// The body of `user.linked` and `user.unlinked`: who claimed which chain, and what came of it.
///
/// The outcome is decided once, at ingestion, under the configured policy and recorded; replay applies
/// recorded outcomes, so changing the policy later never rewrites who owned what.
public struct UserLink: Codable, Hashable, Sendable {
    /// What became of a claim.
    public enum Outcome: String, Codable, Hashable, Sendable {
        /// Nobody owned the chain (or this user already did): it is now this user's.
        case linked
        /// Another user owned it and the `transfer` policy moved it to this user.
        case transferred
        /// Another user owned it and the `keep` policy left it there.
        case rejected
        /// Recorded on the previous owner's stream when a transfer took the chain away.
        case unlinked
    }

    public var userId: String
    public var originalTransactionId: String
    /// `submit` (an authenticated client submission) or `app_account_token`.
    public var source: String
    public var outcome: Outcome
    /// The owner before this claim, if another user.
    public var previousUserId: String?

    /// Creates a link record.
    public init(userId: String, originalTransactionId: String, source: String, outcome: Outcome, previousUserId: String? = nil) {
        self.userId = userId
        self.originalTransactionId = originalTransactionId
        self.source = source
        self.outcome = outcome
        self.previousUserId = previousUserId
    }
}
