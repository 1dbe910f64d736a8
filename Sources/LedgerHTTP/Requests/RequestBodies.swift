import Foundation

/// `POST /v1/apple/transactions`.
struct SubmitTransactionRequest: Decodable, Sendable {
    var user_id: String
    var signed_transaction: String
    var signed_renewal_info: String?
}

/// `POST /v1/apple/receipts`.
struct SubmitReceiptRequest: Decodable, Sendable {
    var user_id: String
    var receipt_data: String
    var bundle_id: String?
}

/// `POST /v1/users/{user_id}/grants`.
struct GrantRequest: Decodable, Sendable {
    var entitlement: String
    var expires_at: String
    var reason: String
}

/// The answer to a grant.
struct GrantBody: Encodable, Sendable {
    var grant_id: String
    var user_id: String
    var entitlement: String
    var expires_at: String
    var reason: String
}

/// A request to revoke a grant.
struct RevokeGrantRequest: Decodable, Sendable {
    var reason: String
}
