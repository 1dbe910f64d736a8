import Foundation

/// `POST /v1/apple/transactions`.
struct SubmitTransactionRequest: RequestBody {
    var user_id: String
    var signed_transaction: String
    var signed_renewal_info: String?

    typealias Field = CodingKeys
    enum CodingKeys: String, CodingKey, CaseIterable { case user_id, signed_transaction, signed_renewal_info }
}

/// `POST /v1/apple/receipts`.
struct SubmitReceiptRequest: RequestBody {
    var user_id: String
    var receipt_data: String
    var bundle_id: String?

    typealias Field = CodingKeys
    enum CodingKeys: String, CodingKey, CaseIterable { case user_id, receipt_data, bundle_id }
}

/// `POST /v1/users/{user_id}/grants`.
struct GrantRequest: RequestBody {
    var entitlement: String
    var expires_at: String
    var reason: String

    typealias Field = CodingKeys
    enum CodingKeys: String, CodingKey, CaseIterable { case entitlement, expires_at, reason }
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
struct RevokeGrantRequest: RequestBody {
    var reason: String

    typealias Field = CodingKeys
    enum CodingKeys: String, CodingKey, CaseIterable { case reason }
}
