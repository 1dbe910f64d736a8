import AppStore
import Crypto
import Foundation

extension TestPKI {
    /// Signs any JSON-encodable payload as a compact ES256 JWS with this PKI's chain in `x5c`.
    /// - Why: the primitive under the typed `sign…` helpers; also mints payloads of your own shape.
    public func sign(_ payload: some Encodable) throws -> String {
        try sign(payloadJSON: JSONEncoder().encode(payload))
    }

    /// Signs raw payload bytes; `alg` and `x5c` can be overridden to mint deliberately wrong tokens.
    /// - Why: tests of the rejection paths (wrong algorithm, short chain, foreign root).
    public func sign(payloadJSON: Data, alg: String = "ES256", x5c: [String]? = nil) throws -> String {
        let header = JWSTestHeader(alg: alg, x5c: x5c ?? self.x5c, typ: "JWT")
        let headerJSON = try JSONEncoder().encode(header)
        let signingInput = Self.base64URL(headerJSON) + "." + Self.base64URL(payloadJSON)
        let signature = try leafKey.signature(for: Data(signingInput.utf8))
        return signingInput + "." + Self.base64URL(signature.rawRepresentation)
    }

    /// Signs a transaction payload (`signedTransactionInfo`).
    /// - Why: `pki.signTransaction(.init(transactionId: "1", ...))` in ledger lifecycle tests.
    public func signTransaction(_ payload: JWSTransactionDecodedPayload) throws -> String {
        try sign(payload)
    }

    /// Signs a renewal info payload (`signedRenewalInfo`).
    public func signRenewalInfo(_ payload: JWSRenewalInfoDecodedPayload) throws -> String {
        try sign(payload)
    }

    /// Signs an AppTransaction payload.
    public func signAppTransaction(_ payload: AppTransactionDecodedPayload) throws -> String {
        try sign(payload)
    }

    /// Signs a notification payload as is (its `data.signedTransactionInfo` etc. must already be JWS).
    public func signNotification(_ payload: ResponseBodyV2DecodedPayload) throws -> String {
        try sign(payload)
    }

    /// Signs a V2 notification, first signing and nesting `transaction` and `renewalInfo` into its `data`.
    /// - Parameters:
    ///   - type: the notification type, e.g. `.subscribed`.
    ///   - subtype: the subtype, e.g. `.initialBuy`.
    ///   - transaction: nested as `data.signedTransactionInfo` (bundle id and environment default to the notification's).
    ///   - renewalInfo: nested as `data.signedRenewalInfo` (environment defaults to the notification's).
    ///   - notificationUUID: the dedupe id; a fresh UUID by default.
    ///   - signedDate: the notification's signed date (the effective time of its verification).
    /// - Returns: the notification's `signedPayload` JWS.
    public func signNotification(
        type: NotificationType,
        subtype: NotificationSubtype? = nil,
        bundleId: String,
        appAppleId: Int64? = nil,
        environment: AppStoreEnvironment = .sandbox,
        transaction: JWSTransactionDecodedPayload? = nil,
        renewalInfo: JWSRenewalInfoDecodedPayload? = nil,
        status: SubscriptionStatus? = nil,
        notificationUUID: String = UUID().uuidString.lowercased(),
        signedDate: AppStoreDate
    ) throws -> String {
        var transaction = transaction
        if var nested = transaction {
            nested.bundleId = nested.bundleId ?? bundleId
            nested.environment = nested.environment ?? environment
            nested.signedDate = nested.signedDate ?? signedDate
            transaction = nested
        }
        var renewalInfo = renewalInfo
        if var nested = renewalInfo {
            nested.environment = nested.environment ?? environment
            nested.signedDate = nested.signedDate ?? signedDate
            renewalInfo = nested
        }
        let payload = ResponseBodyV2DecodedPayload(
            notificationType: type,
            subtype: subtype,
            notificationUUID: notificationUUID,
            data: NotificationData(
                environment: environment,
                appAppleId: appAppleId,
                bundleId: bundleId,
                bundleVersion: "1",
                signedTransactionInfo: try transaction.map(signTransaction),
                signedRenewalInfo: try renewalInfo.map(signRenewalInfo),
                status: status
            ),
            version: "2.0",
            signedDate: signedDate
        )
        return try signNotification(payload)
    }

    /// Wraps a notification JWS in the body Apple POSTs: `{"signedPayload": "..."}`.
    /// - Why: drive the webhook endpoint end to end.
    public static func notificationBody(signedPayload: String) throws -> Data {
        try JSONEncoder().encode(ResponseBodyV2(signedPayload: signedPayload))
    }

    /// A verifier configuration trusting only this PKI's root.
    /// - Why: the one-liner for tests: `SignedDataVerifier(configuration: pki.verifierConfiguration(apps: [...]))`.
    public func verifierConfiguration(apps: [AppStoreApp], chainCacheCapacity: Int = 64) -> SignedDataVerifier.Configuration {
        SignedDataVerifier.Configuration(trustedRoots: [root], apps: apps, chainCacheCapacity: chainCacheCapacity)
    }

    /// A verifier trusting only this PKI's root, for one app.
    /// - Why: the shortest path to a working verifier in a test.
    public func makeVerifier(
        bundleId: String,
        appAppleId: Int64? = nil,
        environments: Set<AppStoreEnvironment> = [.sandbox],
        chainCacheCapacity: Int = 64
    ) throws -> SignedDataVerifier {
        try SignedDataVerifier(
            configuration: verifierConfiguration(
                apps: [AppStoreApp(bundleId: bundleId, appAppleId: appAppleId, environments: environments)],
                chainCacheCapacity: chainCacheCapacity
            )
        )
    }

    static func base64URL(_ data: some DataProtocol) -> String {
        // Map the standard alphabet byte by byte: `replacingOccurrences` is slow on Linux and
        // benchmarks mint thousands of tokens.
        let standard = Data(data).base64EncodedData()
        var bytes = [UInt8]()
        bytes.reserveCapacity(standard.count)
        for byte in standard {
            switch byte {
            case UInt8(ascii: "+"): bytes.append(UInt8(ascii: "-"))
            case UInt8(ascii: "/"): bytes.append(UInt8(ascii: "_"))
            case UInt8(ascii: "="): continue
            default: bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// The JOSE header written by ``TestPKI``.
private struct JWSTestHeader: Encodable {
    var alg: String
    var x5c: [String]
    var typ: String
}
