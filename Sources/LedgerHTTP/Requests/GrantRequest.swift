import Foundation

/// `POST /v1/users/{user_id}/grants`.
struct GrantRequest: RequestBody {
    var entitlement: String
    var expires_at: String
    var reason: String

    typealias Field = CodingKeys
    enum CodingKeys: String, CodingKey, CaseIterable { case entitlement, expires_at, reason }
}
