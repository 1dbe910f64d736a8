import Foundation

/// A request to revoke a grant.
struct RevokeGrantRequest: RequestBody {
    var reason: String

    typealias Field = CodingKeys
    enum CodingKeys: String, CodingKey, CaseIterable { case reason }
}
