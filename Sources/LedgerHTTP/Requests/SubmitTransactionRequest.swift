import Foundation

/// `POST /v1/apple/transactions`.
struct SubmitTransactionRequest: RequestBody {
    var user_id: String
    var signed_transaction: String
    var signed_renewal_info: String?

    typealias Field = CodingKeys
    enum CodingKeys: String, CodingKey, CaseIterable { case user_id, signed_transaction, signed_renewal_info }
}
