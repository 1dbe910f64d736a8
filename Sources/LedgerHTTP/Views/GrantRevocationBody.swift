import Hummingbird
import Ledger

/// The answer to a revoke: the grant as it was made, and its revocation (the first one, when the
/// grant had already been revoked and `result` is `duplicate`).
struct GrantRevocationBody: ResponseEncodable, Sendable {
    var result: String
    var grant_id: String
    var user_id: String
    var entitlement: String
    @Nullable var expires_at: String?
    var reason: String
    var revoked_at: String
    var revoke_reason: String
}

extension GrantRevocationBody {
    init(_ revocation: GrantRevocation) {
        let grant = revocation.grant
        let date = { (milliseconds: Int64) in APIDate.string(millisecondsSince1970: milliseconds) }
        self.init(
            result: revocation.isDuplicate ? "duplicate" : "recorded", grant_id: grant.grantId, user_id: grant.userId,
            entitlement: grant.entitlement, expires_at: grant.expiresAt.map(date), reason: grant.reason,
            revoked_at: date(revocation.revokedAt), revoke_reason: revocation.reason
        )
    }
}
