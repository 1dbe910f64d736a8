import Foundation

/// `POST /v1/apple/receipts`.
struct SubmitReceiptRequest: RequestBody {
    var user_id: String
    var receipt_data: String
    var bundle_id: String?

    typealias Field = CodingKeys
    enum CodingKeys: String, CodingKey, CaseIterable { case user_id, receipt_data, bundle_id }
}
