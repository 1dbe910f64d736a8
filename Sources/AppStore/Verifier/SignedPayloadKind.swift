import Foundation

/// Which of Apple's signed payloads a JWS holds, told by a field only that kind has.
///
/// Each kind decodes from any other's JSON (their fields are optional), so a renewal info sent
/// where a transaction belongs got as far as the app check and was refused as an unknown app,
/// "bundle id (missing)", which sent the integrator to their configuration, and an AppTransaction
/// as stating no environment. Read only on such a failure, after the signature check.
struct SignedPayloadKind: Equatable {
    /// The kind's name, as `SignedPayload.kind` gives it.
    var name: String
    /// The field that told it.
    var marker: String

    /// The kind of the JSON object `payload`, or nil if no marker field is there.
    init?(of payload: Data) {
        guard let object = try? JSONSerialization.jsonObject(with: payload) as? [String: Any] else { return nil }
        // Most telling first: a transaction carries appTransactionId too, renewal info productId.
        let markers: [(field: String, kind: String)] = [
            ("notificationType", ResponseBodyV2DecodedPayload.kind),
            ("autoRenewStatus", JWSRenewalInfoDecodedPayload.kind),
            ("transactionId", JWSTransactionDecodedPayload.kind),
            ("receiptType", AppTransactionDecodedPayload.kind),
        ]
        guard let found = markers.first(where: { object[$0.field] != nil }) else { return nil }
        self.name = found.kind
        self.marker = found.field
    }

    /// `kind` with its article, as a sentence names it ("a transaction", "renewal info").
    static func phrase(_ kind: String) -> String {
        switch kind {
        case JWSRenewalInfoDecodedPayload.kind: kind
        case AppTransactionDecodedPayload.kind: "an \(kind)"
        default: "a \(kind)"
        }
    }
}
