import Hummingbird
import Ledger

/// `GET /v1/users/{user_id}/grants`: every manual grant of the user with its id and status now, so
/// an operator can find the one to revoke (the entitlement view shows one entry per entitlement).
struct GrantListBody: ResponseEncodable, Sendable {
    /// One grant as made, with its revocation if any.
    struct Grant: Encodable, Sendable {
        var grant_id: String
        var entitlement: String
        var status: String
        var active: Bool
        var granted_at: String
        @Nullable var expires_at: String?
        var reason: String
        @Nullable var revoked_at: String?
        @Nullable var revoke_reason: String?
    }

    var user_id: String
    var evaluated_at: String
    var grants: [Grant]
}

extension GrantListBody {
    init(userId: String, grants: [UserState.Grant], at milliseconds: Int64) {
        let date = { (milliseconds: Int64) in APIDate.string(millisecondsSince1970: milliseconds) }
        self.init(
            user_id: userId, evaluated_at: date(milliseconds),
            grants: grants.map { record in
                // A grant or revoke stamped after now (another instance's clock ahead of this one's)
                // is read at its own time, so the list never calls a grant active beside its revoke.
                let moment = max(milliseconds, record.grant.at, record.revokedAt ?? record.grant.at)
                let status = record.status(at: moment) ?? .active
                return Grant(
                    grant_id: record.grant.grantId, entitlement: record.grant.entitlement, status: status.rawValue,
                    active: status == .active, granted_at: date(record.grant.at), expires_at: record.grant.expiresAt.map(date),
                    reason: record.grant.reason, revoked_at: record.revokedAt.map(date), revoke_reason: record.revokeReason
                )
            }
        )
    }
}
