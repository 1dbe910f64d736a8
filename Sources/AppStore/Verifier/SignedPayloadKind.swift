import Foundation

/// Which of Apple's signed payloads a JSON object is, told by a field only that kind has.
///
/// Each kind decodes from any other's JSON (their fields are optional), so a renewal info sent
/// where a transaction belongs got as far as the app check and was refused as an unknown app,
/// "bundle id (missing)", which sent the integrator to their configuration, and an AppTransaction
/// as stating no environment. The verifier reads it only for a payload that lacks its own kind's
/// marker, after the signature check; `subledger verify` reads it to pick what to verify a JWS as,
/// and a receipt submission to say where a JWS sent as `receipt_data` goes.
package enum SignedPayloadKind: String, CaseIterable, Sendable {
    // In the order they are told apart, most telling first: a transaction carries
    // `appTransactionId` too, and renewal info `productId`.
    case notification
    case renewalInfo = "renewal info"
    case transaction
    case appTransaction = "app transaction"

    /// The fields only this kind has; any one of them tells it.
    var markers: [String] {
        switch self {
        case .notification: ["notificationType"]
        case .renewalInfo: ["autoRenewStatus"]
        case .transaction: ["transactionId"]
        case .appTransaction: ["receiptType", "receiptCreationDate"]
        }
    }

    /// The kind's name with its article, as a sentence names it ("a transaction", "renewal info").
    var phrase: String {
        switch self {
        case .renewalInfo: rawValue
        case .appTransaction: "an \(rawValue)"
        case .notification, .transaction: "a \(rawValue)"
        }
    }

    /// The kind of `object` and the field that told it, or nil if it has no marker field.
    package static func of(_ object: [String: Any]) -> (kind: SignedPayloadKind, marker: String)? {
        for kind in allCases {
            if let marker = kind.markers.first(where: { object[$0] != nil }) { return (kind, marker) }
        }
        return nil
    }

    /// The kind of the payload of the compact JWS `jws`, read without verifying anything, or nil
    /// if it is not one or has no marker field. Only for telling a client what it sent where.
    package static func of(unverifiedJWS jws: String) -> (kind: SignedPayloadKind, marker: String)? {
        let segments = jws.split(separator: ".", omittingEmptySubsequences: false)
        guard segments.count == 3, segments[1].utf8.count <= 64 << 10 else { return nil }
        let payload = Array(segments[1].utf8).withUnsafeBufferPointer { Base64.decode($0) }
        return payload.flatMap { of(Data($0)) }
    }

    /// The kind of the JSON object `payload`, or nil if it is not one or has no marker field.
    static func of(_ payload: Data) -> (kind: SignedPayloadKind, marker: String)? {
        guard let object = try? JSONSerialization.jsonObject(with: payload) as? [String: Any] else { return nil }
        return of(object)
    }
}
