/// The body Apple POSTs to the App Store Server Notifications V2 endpoint: `{"signedPayload": "<JWS>"}`.
///
/// The outer envelope; pass ``signedPayload`` to `SignedDataVerifier.verifyNotification(_:now:)`.
public struct ResponseBodyV2: Codable, Hashable, Sendable {
    /// The compact JWS whose payload is a ``ResponseBodyV2DecodedPayload``.
    public var signedPayload: String?

    /// Builds the value field by field; every field is optional, as in Apple's documentation.
    /// - Why: lets tests and fakes write payloads by value (then sign them with `AppStoreTesting`).
    public init(
        signedPayload: String? = nil
    ) {
        self.signedPayload = signedPayload
    }
}
