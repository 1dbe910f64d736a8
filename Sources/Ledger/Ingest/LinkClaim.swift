/// A user's claim on a subscription chain, to be decided under the linking policy.
struct LinkClaim: Hashable, Sendable {
    /// The chain's original transaction id.
    let chain: String
    /// The user claiming it.
    let userId: String
    /// `submit` or `app_account_token`, recorded on the link.
    let source: String
}
