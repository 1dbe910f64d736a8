import Foundation

/// The answer to a grant.
struct GrantBody: Encodable, Sendable {
    var grant_id: String
    var user_id: String
    var entitlement: String
    var expires_at: String
    var reason: String
}
