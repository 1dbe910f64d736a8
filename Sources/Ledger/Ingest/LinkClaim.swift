/// A user's claim on a subscription chain, to be decided under the linking policy.
struct LinkClaim: Hashable, Sendable {
    /// The chain's original transaction id.
    let chain: String
    /// The user claiming it.
    let userId: String
    /// `submit` or `app_account_token`, recorded on the link.
    let source: String
    /// Made by the caller (a client's submission) rather than implied by the fact (a token): decided
    /// even when the fact is a duplicate, since the client may resend to link, and a refusal under
    /// `keep` is the caller's `link_conflict`.
    var isExplicit = false
}
