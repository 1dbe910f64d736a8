/// A verified V2 notification together with its verified nested signed transaction, renewal info and AppTransaction.
///
/// All present JWS were verified against the same roots (sharing the chain cache) and found
/// consistent with the notification's bundle id and environment.
public struct VerifiedNotification: Sendable {
    /// The outer notification.
    public var notification: VerifiedSignedData<ResponseBodyV2DecodedPayload>
    /// `data.signedTransactionInfo`, decoded and verified, when present.
    public var transaction: VerifiedSignedData<JWSTransactionDecodedPayload>?
    /// `data.signedRenewalInfo`, decoded and verified, when present.
    public var renewalInfo: VerifiedSignedData<JWSRenewalInfoDecodedPayload>?
    /// `appData.signedAppTransactionInfo`, decoded and verified, when present.
    public var appTransaction: VerifiedSignedData<AppTransactionDecodedPayload>?

    /// Creates a result by value.
    /// - Why: lets fakes in other targets' tests return a notification without signing anything.
    public init(
        notification: VerifiedSignedData<ResponseBodyV2DecodedPayload>,
        transaction: VerifiedSignedData<JWSTransactionDecodedPayload>? = nil,
        renewalInfo: VerifiedSignedData<JWSRenewalInfoDecodedPayload>? = nil,
        appTransaction: VerifiedSignedData<AppTransactionDecodedPayload>? = nil
    ) {
        self.notification = notification
        self.transaction = transaction
        self.renewalInfo = renewalInfo
        self.appTransaction = appTransaction
    }

    /// The outer notification payload (type, subtype, UUID, data).
    public var payload: ResponseBodyV2DecodedPayload { notification.payload }
}
