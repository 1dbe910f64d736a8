import AppStore
import Crypto
import EventStore
import Foundation
import Logging

/// The ledger's use cases: ingest what Apple sends, link users, grant, and answer entitlement queries.
///
/// Each ingestion appends one event (deduplicated) and updates the read models in the same transaction,
/// so a success means the next read sees it. Reads evaluate status at the requested moment from the
/// stored fold state, so expiry needs no event.
public final class SubscriptionLedger: Sendable {
    public let store: any EventStore
    public let verifier: SignedDataVerifier
    public let receiptValidator: (any ReceiptValidating)?
    public let configuration: LedgerConfiguration
    let clock: any LedgerClock
    let logger: Logger
    let projector = LedgerProjector()
    let evaluator: EntitlementEvaluator
    /// Concurrent ingests share transactions through it (group commit).
    let factBatcher: Batcher<PendingFact, IngestResult>
    /// Timers for verification and database work, made once.
    let metrics = LedgerMetrics()
    /// Says when a fact names a product the catalog lacks.
    let unconfiguredProducts: UnconfiguredProducts

    /// Creates the ledger over a store, a verifier and (optionally) a verifyReceipt client.
    public init(
        store: any EventStore,
        verifier: SignedDataVerifier,
        receiptValidator: (any ReceiptValidating)? = nil,
        configuration: LedgerConfiguration,
        clock: any LedgerClock = SystemClock(),
        logger: Logger = Logger(label: "subledger.ledger")
    ) {
        self.store = store
        self.verifier = verifier
        self.receiptValidator = receiptValidator
        self.configuration = configuration
        self.clock = clock
        self.logger = logger
        self.evaluator = EntitlementEvaluator(catalog: configuration.catalog, sandboxGrants: configuration.sandboxGrants)
        self.unconfiguredProducts = UnconfiguredProducts(catalog: configuration.catalog)
        // A leader runs one more batch before handing over: interleaved benchmark runs measured more
        // notifications per second than handing every batch to a waiter (docs/architecture.md).
        self.factBatcher = Batcher(
            maxBatchesInFlight: configuration.ingestBatchesInFlight, maxBatchSize: configuration.ingestBatchSize,
            executor: store.batchExecutor, followOnBatches: 1
        )
    }

    // MARK: Ingestion

    /// Verifies and records an App Store Server Notification V2 body (`{"signedPayload": ...}`).
    public func ingestNotificationV2(body: Data, context: IngestContext) async throws -> IngestResult {
        let now = clock.now()
        let verified: VerifiedNotification
        do {
            verified = try await LedgerMetrics.timed(metrics.notificationVerification) { try await verifier.verifyNotificationBody(body, now: now) }
        } catch let error as AppStoreError where error.code == .malformedBody || error.code == .inputTooLarge {
            // A V1 body posted here (a webhook URL set up for the wrong version) or a client's
            // submission says so, as the V1 endpoint does for the others, also over the signed
            // input's size limit (a V1 notification's receipt can pass it); but a text that is not
            // JSON is told that first, as everywhere. The V1 endpoint parses bodies up to the 1 MiB
            // limit from anyone too, so this costs an impostor nothing more.
            if JSONSyntaxFault.findAccepting(body) == nil, let other = Self.input(body), other != .notificationV2 {
                throw LedgerError(.malformedBody, "the body is \(other.summary)", belongsTo: other)
            }
            throw error
        }
        let fact = Self.notificationFact(body: body, verified: verified, now: now)
        let chain = fact.transactions.first?.originalTransactionId ?? fact.renewals.first?.originalTransactionId
        let stream = chain.map(LedgerEventType.chainStream) ?? LedgerEventType.appStream(fact.bundleId ?? "unknown")
        // The text as kept (UTF-16 converted), so the same notification in either encoding is one.
        let key = "notification:" + (fact.notificationUUID ?? Self.sha256(Data(fact.raw.utf8)))
        // The fact and the links its appAccountToken claims commit together: a webhook answered 200
        // never leaves a recorded purchase without the owner it names.
        let result = try await record(
            fact, type: LedgerEventType.notificationV2, stream: stream, dedupeKey: key,
            receivedAt: now, context: context, facts: verified.notification.facts, claims: appAccountTokenClaims(in: fact)
        )
        if result.isDuplicate, fact.notificationUUID != nil {
            await noteOtherContent(of: result, than: fact, context: context)
        }
        return result
    }

    /// Apple names a notification's retries by its `notificationUUID`, so a duplicate is not
    /// recorded; one whose signed payload differs from the recorded one's (Apple's retry signed
    /// again, or another notification that reuses the id) is logged, so the fact not recorded leaves
    /// a trace. The JSON around the payload (spacing, a byte order mark) is not compared. Read only
    /// for a duplicate; a failed read is not the webhook's failure.
    private func noteOtherContent(of result: IngestResult, than fact: AppleFact, context: IngestContext) async {
        func signedPayload(_ raw: String) -> String? {
            (try? JSONDecoder().decode(ResponseBodyV2.self, fromUntrusted: Data(raw.utf8)))?.signedPayload
        }
        guard let stream = result.streamID, let version = result.streamVersion,
              let recorded = try? await store.readStream(stream, from: version, limit: 1).first,
              let recordedFact = try? JSONDecoder().decode(AppleFact.self, fromUntrusted: recorded.data),
              recordedFact.raw != fact.raw, signedPayload(recordedFact.raw) != signedPayload(fact.raw) else { return }
        let differs = recordedFact.transactions != fact.transactions || recordedFact.renewals != fact.renewals || recordedFact.notificationType != fact.notificationType
        logger(for: context).notice(
            "a notification with this notificationUUID was recorded before with other text; the first is kept, this one is not recorded",
            metadata: [
                "notification_uuid": "\(fact.notificationUUID ?? "")", "event_id": "\(result.eventID)", "position": "\(result.position)",
                "notification_type": "\(fact.notificationType ?? "")", "recorded_type": "\(recordedFact.notificationType ?? "")",
                "decoded_fields": "\(differs ? "differ" : "same")", "sha256": "\(Self.sha256(Data(fact.raw.utf8)))",
            ]
        )
    }

    /// The fact a verified V2 notification body records: its text and what the fold reads of it.
    /// Audits rebuild it from the recorded text to check the decoded fields (`SignedFactCheck`).
    static func notificationFact(body: Data, verified: VerifiedNotification, now: Date) -> AppleFact {
        let payload = verified.payload
        let signedDate = payload.signedDate?.millisecondsSince1970 ?? Timestamp.milliseconds(now)
        let transaction = verified.transaction.flatMap { Normalizer.observation($0.payload, fallback: signedDate) }
        let renewal = verified.renewalInfo.flatMap { Normalizer.observation($0.payload, fallback: signedDate) }
        // Kept as its text: a body the decoder read as UTF-16 or UTF-32 is kept in UTF-8, the one
        // way it departs from the bytes as sent (read as UTF-8 they would not be the text Apple sent).
        let text = JSONTextEncoding.utf8(body) ?? body
        return AppleFact(
            raw: String(decoding: text, as: UTF8.self),
            notificationType: payload.notificationType?.rawValue,
            subtype: payload.subtype?.rawValue,
            notificationUUID: payload.notificationUUID,
            bundleId: payload.bundleId,
            transactions: transaction.map { [$0] } ?? [],
            renewals: renewal.map { [$0] } ?? []
        )
    }

    /// The transaction observation a verified StoreKit 2 transaction gives, or nil if it lacks what
    /// one needs (a transaction id, product id or purchase date).
    static func transactionObservation(_ verified: VerifiedSignedData<JWSTransactionDecodedPayload>, now: Date) -> TransactionObservation? {
        Normalizer.observation(verified.payload, fallback: Timestamp.milliseconds(now))
    }

    /// The fact a verified StoreKit 2 submission records, `transaction` being its observation
    /// (`transactionObservation`). Audits rebuild it from the recorded text too.
    static func transactionFact(
        userId: String, signedTransaction: String, signedRenewalInfo: String?, transaction: TransactionObservation,
        bundleId: String?, renewal: VerifiedSignedData<JWSRenewalInfoDecodedPayload>?, now: Date
    ) -> AppleFact {
        AppleFact(
            raw: signedTransaction + (signedRenewalInfo.map { "\n" + $0 } ?? ""),
            bundleId: bundleId,
            userId: userId,
            transactions: [transaction],
            renewals: renewal.flatMap { Normalizer.observation($0.payload, fallback: Timestamp.milliseconds(now)) }.map { [$0] } ?? []
        )
    }

    /// Which input `body` is by the field that tells it, or nil if it is not a JSON object with
    /// one: read only when a body fails, to say where it belongs.
    static func input(_ body: Data) -> LedgerError.Input? {
        guard let object = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] else { return nil }
        return LedgerError.Input.told(byFields: object.keys)
    }

    /// Records an App Store Server Notification V1 after checking its password in constant time.
    public func ingestNotificationV1(body: Data, context: IngestContext) async throws -> IngestResult {
        let now = clock.now()
        guard !body.isEmpty else {
            throw LedgerError(.malformedBody, "the body is empty; an App Store Server Notification V1 is a JSON object")
        }
        let notification: NotificationV1
        do {
            notification = try JSONDecoder().decode(NotificationV1.self, fromUntrusted: body)
        } catch let error as DecodingError {
            throw LedgerError(.malformedBody, "the body is not an App Store Server Notification V1: \(error.summary(of: body))")
        } catch {
            throw LedgerError(.malformedBody, "the body is not an App Store Server Notification V1")
        }
        // The decoder checks only what the model reads; the body is kept as sent, so all of it must
        // be JSON (a raw tab or a byte that is not UTF-8 in a field the server ignores would be kept
        // as text that does not parse). UTF-16 and UTF-32 bodies are scanned and kept as their text in UTF-8.
        if let fault = JSONSyntaxFault.findAccepting(body) {
            throw LedgerError(.malformedBody, "the body is not an App Store Server Notification V1: not valid JSON: \(fault)")
        }
        guard let bundleId = notification.bid else {
            // A V2 body posted here (a webhook URL set up for the wrong version) or a client's
            // submission says so.
            if let other = Self.input(body), other != .notificationV1 {
                throw LedgerError(.malformedBody, "the body is \(other.summary)", belongsTo: other)
            }
            throw LedgerError(.malformedBody, "the body has no bid (the app's bundle id), so it is not an App Store Server Notification V1")
        }
        guard let secret = configuration.sharedSecrets[bundleId] else {
            // Told apart: an app not configured at all is a different fix from a missing secret.
            guard verifier.app(bundleId: bundleId) != nil else {
                throw LedgerError(.unknownApp, "bundle id \(bundleId) is not a configured app")
            }
            throw LedgerError(.unknownApp, "no shared secret is configured for bundle id \(bundleId) (set shared_secret_env for it)")
        }
        guard let password = notification.password else {
            throw LedgerError(.invalidPassword, "the notification has no password; Apple sends the app's shared secret in it")
        }
        guard Self.constantTimeEquals(password, secret) else {
            throw LedgerError(.invalidPassword, "the notification's password does not match the shared secret of \(bundleId)")
        }
        guard let type = notification.notificationType, !type.rawValue.allSatisfy(\.isWhitespace) else {
            throw LedgerError(.malformedBody, "the body has no notification_type, so it is not an App Store Server Notification V1")
        }
        let stated = notification.environment ?? notification.unifiedReceipt?.environment
        if let outer = Normalizer.environment(notification.environment), let inner = Normalizer.environment(notification.unifiedReceipt?.environment), outer != inner {
            throw LedgerError(.environmentNotAccepted, "the V1 notification states environment \(outer) and its unified_receipt \(inner)")
        }
        let environment = try acceptedEnvironment(stated, bundleId: bundleId, of: "V1 notification")
        // Apple: a unified receipt's status is 0 when the notification is valid.
        if let status = notification.unifiedReceipt?.status, status != VerifyReceiptStatus.valid {
            throw LedgerError(.invalidReceipt, "the V1 notification's unified_receipt has status \(status), not 0")
        }
        let received = Timestamp.milliseconds(now)
        let entries = notification.unifiedReceipt?.latestReceiptInfo ?? []
        // A V1 body is not signed, only sent with the shared secret, so its app_account_token stays in
        // the raw body and links nobody: a body forged with the secret must not move a chain to
        // another user. Left out of the observations, it is not a token the chain's transactions
        // carried either, so a signed notification bringing it later (an app moving from V1 to V2)
        // claims the chain when its transaction is the chain's newest that carries a token. The
        // chain keeps each transaction's token apart from its winning observation, so a V1
        // observation that wins without the token does not make it forget one a signed notification
        // brought.
        let transactions = entries.compactMap {
            Normalizer.observation(
                $0, bundleId: bundleId, environment: environment,
                assertedAt: Normalizer.statedAt($0, received: received), catalog: configuration.catalog
            )
        }.map { observation in
            var unlinked = observation
            unlinked.appAccountToken = nil
            return unlinked
        }
        var renewals = (notification.unifiedReceipt?.pendingRenewalInfo ?? []).compactMap {
            Normalizer.observation($0, environment: environment, assertedAt: received)
        }
        // The latest purchase, as a chain picks its governing one: ids as numbers ("10" after "9").
        let latest = ChainState.latest(of: transactions)
        let subscription = ChainState.latest(of: transactions.filter { $0.type == ProductType.autoRenewable })
        if let pending = notification.unifiedReceipt?.pendingRenewalInfo, let chain = subscription?.originalTransactionId {
            // Only for the subscription the notification is about: a late retry must not end the
            // grace period of every other subscription its receipt lists.
            renewals += Normalizer.missingRenewals(
                for: transactions.filter { $0.originalTransactionId == chain }, listed: pending,
                environment: environment, assertedAt: received
            )
        }
        if notification.unifiedReceipt?.pendingRenewalInfo == nil, let autoRenew = notification.autoRenewStatus?.boolValue,
           let chain = Self.subscriptionNamed(by: notification, among: transactions) {
            // Without pending_renewal_info, the notification's own auto-renew fields are what Apple
            // says of its subscription's renewal (its V1 documentation names them for
            // DID_CHANGE_RENEWAL_STATUS); they went unread, so renewal turned off left will_renew
            // true (legacy walkthrough). Dated by the change Apple states, never after arrival.
            renewals.append(RenewalObservation(
                originalTransactionId: chain, autoRenewStatus: autoRenew, autoRenewProductId: notification.autoRenewProductId,
                environment: environment,
                assertedAt: min(notification.autoRenewStatusChangeDate?.millisecondsSince1970 ?? received, received)
            ))
        }
        // One that names no subscription (a CONSUMPTION_REQUEST, or a REFUND of a consumable the app
        // finished, which Apple leaves out of latest_receipt_info) is still Apple's, sent with the
        // secret: kept on the app's stream, as a V2 notification without data is, and changing no
        // subscription. Refused as malformed, Apple sent it again and again (legacy walkthrough).
        let chain = latest?.originalTransactionId ?? renewals.first?.originalTransactionId
        // Renewal infos too: a pending renewal entry naming another app's subscription would set its
        // will-renew, grace period and billing retry.
        try await refuseOtherAppsChains(Set(transactions.map(\.originalTransactionId) + renewals.map(\.originalTransactionId)), bundleId: bundleId)
        // The shared secret is not a fact: it is redacted before the body is kept (see events.md).
        let kept = NotificationV1.redactingPassword(in: body)
        let fact = AppleFact(
            raw: String(decoding: kept, as: UTF8.self),
            notificationType: notification.notificationType?.rawValue,
            bundleId: bundleId,
            transactions: transactions,
            renewals: renewals
        )
        return try await record(
            fact, type: LedgerEventType.notificationV1, stream: chain.map(LedgerEventType.chainStream) ?? LedgerEventType.appStream(bundleId),
            dedupeKey: "notification-v1:" + Self.sha256(kept), receivedAt: now, context: context
        )
    }

    /// The subscription a V1 notification's own auto-renew fields are about: the one auto-renewable
    /// subscription its receipt lists, or, of several, the one whose latest purchase is of its
    /// `auto_renew_product_id`; nil when that does not tell one (re-test: the newest was taken, so
    /// renewal turned off on an older subscription was put on another).
    static func subscriptionNamed(by notification: NotificationV1, among transactions: [TransactionObservation]) -> String? {
        let subscriptions = Dictionary(grouping: transactions.filter { $0.type == ProductType.autoRenewable }, by: \.originalTransactionId)
            .compactMapValues { ChainState.latest(of: $0) }
        if subscriptions.count == 1 { return subscriptions.keys.first }
        guard let product = notification.autoRenewProductId else { return nil }
        let named = subscriptions.filter { $0.value.productId == product }
        return named.count == 1 ? named.keys.first : nil
    }

    /// Verifies a StoreKit 2 transaction a client submitted for `userId`, records it and links the
    /// chain to the user in one transaction, and returns the user's entitlements and whether the
    /// transaction was already recorded.
    public func submitTransaction(
        userId: String,
        signedTransaction: String,
        signedRenewalInfo: String?,
        context: IngestContext
    ) async throws -> SubmissionResult {
        let now = clock.now()
        let verified = try await LedgerMetrics.timed(metrics.transactionVerification) { try await verifier.verifyTransaction(signedTransaction, now: now) }
        guard let transaction = Self.transactionObservation(verified, now: now) else {
            throw LedgerError(.malformedBody, "the signed transaction lacks a transaction id, product id or purchase date")
        }
        var renewal: VerifiedSignedData<JWSRenewalInfoDecodedPayload>?
        if let signedRenewalInfo {
            let verifiedRenewal = try await verifier.verifyRenewalInfo(signedRenewalInfo, bundleId: verified.payload.bundleId, now: now)
            // Every renewal info Apple signs states auto-renew; one that does not would be recorded
            // as renewal off. (A JWS of another kind sent in its place is named by the verifier.)
            guard verifiedRenewal.payload.autoRenewStatus != nil else {
                throw LedgerError(.malformedBody, "signed_renewal_info states no autoRenewStatus, which every renewal info Apple signs states")
            }
            // The two parts are verified apart: each must be about the same subscription in the same
            // environment, or one could bring another subscription's (or environment's) renewal state.
            guard let other = verifiedRenewal.payload.originalTransactionId, other == transaction.originalTransactionId else {
                throw LedgerError(
                    .malformedBody,
                    "signed_renewal_info is for subscription \(verifiedRenewal.payload.originalTransactionId ?? "(none named)"), not the transaction's \(transaction.originalTransactionId)"
                )
            }
            guard verifiedRenewal.facts.environment == verified.facts.environment else {
                throw LedgerError(
                    .malformedBody,
                    "signed_renewal_info is from the \(verifiedRenewal.facts.environment.rawValue) environment, the transaction from \(verified.facts.environment.rawValue)"
                )
            }
            renewal = verifiedRenewal
        }
        let fact = Self.transactionFact(
            userId: userId, signedTransaction: signedTransaction, signedRenewalInfo: signedRenewalInfo,
            transaction: transaction, bundleId: verified.payload.bundleId, renewal: renewal, now: now
        )
        let renewals = fact.renewals
        let chain = transaction.originalTransactionId
        let result = try await record(
            fact, type: LedgerEventType.transaction,
            stream: LedgerEventType.chainStream(chain),
            dedupeKey: "transaction:\(transaction.transactionId):\(transaction.assertedAt)" + (renewals.first.map { ":\($0.assertedAt)" } ?? ""),
            receivedAt: now, context: context, facts: verified.facts,
            // The caller names the owner; the transaction's own appAccountToken claims nothing here.
            claims: [LinkClaim(chain: chain, userId: userId, source: "submit", isExplicit: true)]
        )
        try Self.refuseIfKept(result)
        return SubmissionResult(entitlements: try await entitlements(userId: userId, at: clock.now()), isDuplicate: result.isDuplicate)
    }

    /// Whose fault verifyReceipt's 21004 (the shared secret sent does not match) is. Apple checks the
    /// secret against the receipt's own app (`receiptApp`, read without Apple, nil when it cannot
    /// be): one of an app not served here, or of another app than the one named, is the client's
    /// (400). When the default secret went (`secretApp` nil) and the apps' secrets differ, a
    /// receipt unread here may be another app's, which the client can name. Otherwise the secret of
    /// the receipt's own app was refused: the server's configuration (500).
    private func sharedSecretRefusal(receiptApp: String?, requested: String?, secretApp: String?) -> LedgerError {
        if let receiptApp, verifier.app(bundleId: receiptApp) == nil {
            return LedgerError(.unknownApp, "the receipt is for bundle id \(receiptApp), which is not a configured app (verifyReceipt refused the shared secret sent: status 21004)")
        }
        if let receiptApp, let requested, receiptApp != requested {
            return LedgerError(.bundleMismatch, "the receipt is for \(receiptApp), not \(requested) (verifyReceipt refused \(requested)'s shared secret: status 21004)")
        }
        if secretApp == nil, hasDistinctAppSecrets {
            guard let receiptApp else {
                return LedgerError(.bundleIdRequired, "verifyReceipt refused the default shared secret (status 21004); name the receipt's app with bundle_id so its secret is sent")
            }
            return LedgerError(.sharedSecretRejected, "verifyReceipt answered status 21004 to the default shared secret: no shared secret is configured for \(receiptApp), the receipt's app")
        }
        return LedgerError(.sharedSecretRejected, "verifyReceipt answered status 21004: the shared secret sent does not match the app's in App Store Connect")
    }

    /// Whether the default secret (the first app's) may be the wrong one for a receipt: no secret of
    /// verifyReceipt's own is configured, and the apps' secrets differ.
    private var hasDistinctAppSecrets: Bool {
        !configuration.hasOwnReceiptSecret && Set(configuration.sharedSecrets.values).count > 1
    }

    /// The transaction id a pre-iOS 7 transaction receipt names ("" when it names none); nil for
    /// text that is not one.
    private static func legacyTransactionReceipt(_ receiptData: String) -> String? {
        do {
            return try LegacyTransactionReceipt.transactionId(fromBase64: receiptData) ?? ""
        } catch {
            return nil
        }
    }

    /// What a JWS sent as `receipt_data` holds and where it goes instead, read from its payload
    /// without verifying it (it is refused either way).
    private static func whereJWSGoes(_ jws: String) -> String {
        switch SignedPayloadKind.of(unverifiedJWS: jws)?.kind {
        case .transaction:
            "a signed transaction (StoreKit 2), not an app receipt; submit it as signed_transaction instead"
        case .renewalInfo:
            "signed renewal info (StoreKit 2), not an app receipt; submit it as signed_renewal_info, with its transaction as signed_transaction"
        case .notification:
            "a signed App Store Server Notification, not an app receipt; Apple posts those to /v1/apple/notifications/v2"
        case .appTransaction:
            "a signed AppTransaction (StoreKit 2), not an app receipt; the ledger records purchases: submit a signed transaction as signed_transaction"
        case nil:
            "a signed JWS (StoreKit 2), not an app receipt; submit a signed transaction as signed_transaction instead"
        }
    }

    /// The bundle id an app receipt names, read without Apple; nil for text that is not one (a
    /// receipt only Apple can read).
    private static func receiptApp(_ receiptData: String) -> String? {
        (try? AppReceiptParser.parse(base64: receiptData))?.bundleId
    }

    /// Validates a legacy receipt through verifyReceipt, records the response for `userId` and links
    /// every chain in it to the user in one transaction, and returns the user's entitlements and
    /// whether the answer was a duplicate.
    ///
    /// `bundleId`, when given, picks the app whose shared secret is sent and must be the receipt's.
    /// Without it the validator's default secret is sent, or, when the apps' secrets differ, the
    /// secret of the app the receipt names. Either way the receipt's app must be
    /// configured and accept the environment verifyReceipt answered from; nothing is recorded otherwise.
    public func submitReceipt(userId: String, receiptData: String, bundleId requested: String? = nil, context: IngestContext) async throws -> SubmissionResult {
        guard !receiptData.allSatisfy(\.isWhitespace) else {
            throw LedgerError(.malformedBody, "receipt_data must hold the app's base64 receipt")
        }
        // Apple answers text that is not base64 with 21002, which is retried as transient: refused
        // here, the client hears at once that its input is wrong instead of a 502 after the retries.
        guard receiptData.unicodeScalars.allSatisfy(Self.isBase64Text) else {
            // A StoreKit 2 JWS (its header starts `eyJ`, and it has two dots) is a likely mistake
            // in a move to StoreKit 2: say what it holds and where it goes.
            let trimmed = receiptData.trimmingCharacters(in: .whitespacesAndNewlines)
            if trimmed.hasPrefix("eyJ"), trimmed.split(separator: ".", omittingEmptySubsequences: false).count == 3 {
                throw LedgerError(.malformedBody, "receipt_data holds " + Self.whereJWSGoes(trimmed))
            }
            throw LedgerError(.malformedBody, "receipt_data has characters base64 text does not; send the app's receipt as base64")
        }
        // A pre-iOS 7 transaction receipt: verifyReceipt answers it in another shape (the bundle id
        // as `bid`, no environment, ids as text) that says neither app nor environment, so it could
        // never be recorded, and its answer read as Apple failing (502). Told here, Apple not asked.
        if let transaction = Self.legacyTransactionReceipt(receiptData) {
            let named = transaction.isEmpty ? "" : " (transaction \(transaction))"
            throw LedgerError(
                .invalidReceipt,
                "receipt_data is a pre-iOS 7 transaction receipt\(named), which this server does not take; send the app receipt (appStoreReceiptURL) or the StoreKit 2 signed transaction"
            )
        }
        guard let validator = receiptValidator else {
            throw LedgerError(.receiptValidationUnavailable, "no verifyReceipt client is configured")
        }
        if let requested, verifier.app(bundleId: requested) == nil {
            throw LedgerError(.unknownApp, "bundle id \(requested) is not a configured app")
        }
        // The app whose shared secret goes: the one named; else, when the default (the first app's)
        // may be the wrong one, the app the receipt itself names, if it has a secret here.
        let secretApp = requested ?? (hasDistinctAppSecrets ? Self.receiptApp(receiptData).flatMap { configuration.sharedSecrets[$0] == nil ? nil : $0 } : nil)
        let now = clock.now()
        let response = try await LedgerMetrics.timed(metrics.receiptVerification) {
            try await validator.verifyReceipt(
                receiptData, excludeOldTransactions: false, sharedSecret: secretApp.flatMap { configuration.sharedSecrets[$0] },
                logger: logger(for: context)
            )
        }
        if response.status == VerifyReceiptStatus.sharedSecretMismatch {
            throw sharedSecretRefusal(receiptApp: Self.receiptApp(receiptData), requested: requested, secretApp: secretApp)
        }
        guard response.status == VerifyReceiptStatus.valid else {
            let meaning = response.status.flatMap(VerifyReceiptStatus.meaning).map { " (\($0))" } ?? ""
            if let status = response.status, VerifyReceiptStatus.internalDataAccessErrors.contains(status) {
                // Apple's own failure, which it marked not to retry (else the client retried it):
                // not the receipt's fault, so not invalid_receipt, which a backend may act on
                // against the user (legacy walkthrough).
                throw AppStoreError(
                    .appleUnavailable,
                    "verifyReceipt answered status \(status)\(meaning) and marked it not retryable: Apple could not validate this receipt now; the receipt is not known to be bad"
                )
            }
            throw LedgerError(.invalidReceipt, "verifyReceipt answered status \(response.status.map(String.init) ?? "(none)")\(meaning)")
        }
        let bundleId = response.receipt?.bundleId ?? requested
        if let requested, let bundleId, bundleId != requested {
            throw LedgerError(.bundleMismatch, "the receipt is for \(bundleId), not \(requested)")
        }
        let environment = try acceptedEnvironment(response.environment, bundleId: bundleId, of: "receipt")
        let asserted = response.receipt?.requestDate?.millisecondsSince1970 ?? Timestamp.milliseconds(now)
        // `latest_receipt_info` is Apple's state when it answered; without it the entries are the
        // receipt the app sent, only as current as its creation, so a refund Apple signed since wins.
        let entries = response.latestReceiptInfo ?? response.receipt?.inApp ?? []
        let entriesAsserted = response.latestReceiptInfo != nil
            ? asserted
            : min(response.receipt?.receiptCreationDate?.millisecondsSince1970 ?? asserted, asserted)
        let transactions = entries.compactMap {
            Normalizer.observation($0, bundleId: bundleId, environment: environment, assertedAt: entriesAsserted, catalog: configuration.catalog)
        }
        var renewals = (response.pendingRenewalInfo ?? []).compactMap {
            Normalizer.observation($0, environment: environment, assertedAt: asserted)
        }
        if let pending = response.pendingRenewalInfo {
            renewals += Normalizer.missingRenewals(for: transactions, listed: pending, environment: environment, assertedAt: asserted)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        // Apple's answer as received; re-encoded only when the validator kept no bytes (an in-memory fake).
        let raw = try response.receivedBody ?? encoder.encode(response)
        var identified = [
            "bundle_id": bundleId ?? "",
            "latest_receipt_info": try String(decoding: encoder.encode(entries), as: UTF8.self),
            // Absent and empty differ: only an empty list says the subscriptions no longer renew.
            "pending_renewal_info": try response.pendingRenewalInfo.map { try String(decoding: encoder.encode($0), as: UTF8.self) } ?? "absent",
        ]
        if response.latestReceiptInfo == nil, response.receipt?.receiptCreationDate != nil {
            // The entries count from the receipt's creation, which may be older than facts recorded
            // before it: an equal receipt created later says more, so it is no duplicate. (Without a
            // creation date they count from Apple's answer, which each validation moves on, so it is
            // left out, as for latest_receipt_info.)
            identified["asserted_at"] = String(entriesAsserted)
        }
        let identity = try encoder.encode(identified)
        let fact = AppleFact(
            raw: String(decoding: raw, as: UTF8.self), bundleId: bundleId, userId: userId,
            transactions: transactions, renewals: renewals
        )
        let result = try await record(
            fact, type: LedgerEventType.receiptValidated, stream: LedgerEventType.userStream(userId),
            dedupeKey: try await receiptDedupeKey(
                userId: userId, bundleId: bundleId, identity: Self.sha256(identity),
                chains: Set(transactions.map(\.originalTransactionId) + renewals.map(\.originalTransactionId))
            ),
            receivedAt: now, context: context,
            claims: Set(transactions.map(\.originalTransactionId)).sorted().map {
                LinkClaim(chain: $0, userId: userId, source: "submit", isExplicit: true)
            }
        )
        try Self.refuseIfKept(result)
        return SubmissionResult(entitlements: try await entitlements(userId: userId, at: clock.now()), isDuplicate: result.isDuplicate)
    }

    /// Whether `scalar` can appear in a receipt's base64 text: the standard and URL-safe alphabets,
    /// padding, and the line breaks and spaces some encoders put in.
    static func isBase64Text(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "A"..."Z", "a"..."z", "0"..."9", "+", "/", "-", "_", "=", " ", "\t", "\n", "\r": true
        default: false
        }
    }

    /// The dedupe key of a receipt answer whose transactions and renewal info hash to `identity`,
    /// about `chains`.
    ///
    /// An answer is a duplicate only of the user's latest recorded receipt of the same app (a user
    /// of two apps alternates their receipts), and only while nothing
    /// else was recorded about its subscriptions since (a notification, a submission: their streams'
    /// versions are part of the key). So a client resending its receipt adds nothing, while a state
    /// that returns (auto-renew off, then on again) or an answer that contradicts a newer
    /// notification (a refund since reversed) is recorded again, and the fold orders it by Apple's
    /// `request_date_ms`. Keys: `receipt:<user>:<identity>[:after:<previous receipt event>]:chains:<mark>`;
    /// a latest receipt recorded with the earlier `receipt:<user>:<identity>` form is never matched.
    /// The mark cannot see a V1 notification about a subscription kept on another one's stream, nor
    /// another user's receipt: those leave an equal answer a duplicate.
    func receiptDedupeKey(userId: String, bundleId: String?, identity: String, chains: Set<String>) async throws -> String {
        var versions: [String] = []
        for chain in chains.sorted() {
            versions.append("\(chain)=\(try await store.streamVersion(LedgerEventType.chainStream(chain)))")
        }
        let mark = String(Self.sha256(Data(versions.joined(separator: "\n").utf8)).prefix(16))
        let same = "receipt:\(userId):\(identity)"
        guard let latest = try await latestReceiptEvent(userId: userId, bundleId: bundleId), let key = latest.dedupeKey else {
            return same + ":chains:" + mark
        }
        // A key of the earlier form carries no mark, so whether anything happened since is unknown:
        // it is never matched (one more receipt event per user after an upgrade).
        if key.hasPrefix(same), key.hasSuffix(":chains:" + mark) {
            return key
        }
        return same + ":after:" + latest.eventID.lowercaseString + ":chains:" + mark
    }

    /// The user's latest receipt event for `bundleId`, reading their stream back a few events at a
    /// time, more each time (it also holds links and grants; a receipt event can be tens of KB).
    private func latestReceiptEvent(userId: String, bundleId: String?) async throws -> RecordedEvent? {
        let stream = LedgerEventType.userStream(userId)
        var end = try await store.streamVersion(stream)
        var page: Int64 = 4
        while end > 0 {
            let start = max(1, end - page + 1)
            let events = try await store.readStream(stream, from: start, limit: Int(end - start + 1))
            let found = events.last {
                $0.type == LedgerEventType.receiptValidated && (try? JSONDecoder().decode(FactApp.self, fromUntrusted: $0.data))?.bundleId == bundleId
            }
            if let found { return found }
            end = start - 1
            page = min(page * 2, 64)
        }
        return nil
    }

    /// Appends a fact received at `receivedAt` and folds it into the read models in the same
    /// transaction, with the links of `claims` (chain → user) when the fact is new.
    ///
    /// Facts recorded at the same moment share a transaction (group commit, see `recordBatch`). When
    /// a shared transaction fails, each of its facts is recorded again alone, so one bad input only
    /// fails its own request.
    func record(
        _ fact: AppleFact,
        type: String,
        stream: String,
        dedupeKey: String,
        receivedAt: Date,
        context: IngestContext,
        facts: VerificationFacts? = nil,
        claims: [LinkClaim] = []
    ) async throws -> IngestResult {
        unconfiguredProducts.check(fact, logger: logger(for: context))
        let pending = PendingFact(
            fact: fact, type: type, stream: stream, dedupeKey: dedupeKey, receivedAt: receivedAt,
            context: context, facts: facts, claims: claims
        )
        do {
            return try await factBatcher.submit(pending, run: recordBatch)
        } catch let failed as Batcher<PendingFact, IngestResult>.SharedBatchFailed {
            logger(for: context).notice("a shared ingest transaction failed; recording its facts one by one", metadata: [
                "error": "\(failed.underlying)",
            ])
            guard let result = try await recordBatch([pending]).first else {
                throw EventStoreError(.databaseError, "append returned no outcome")
            }
            return result
        }
    }

    /// Records several facts in one transaction: the first statement locks every stream head the
    /// batch may append to and every document it may change, then every fact is appended to its
    /// stream (deduplicated) in one multi-stream append, the new ones are folded in the order they
    /// arrived, their claims are decided in that order (a duplicate's explicit claims too), the links
    /// appended in a second multi-stream append and folded, and the documents written in one
    /// statement. Heads, then documents, are locked in sorted order, so concurrent batches queue
    /// rather than deadlock (a transfer's previous owner is known only from the chain's owner
    /// document: when the first statement missed one, the batch runs again with it, see
    /// `withPreviousOwners`).
    func recordBatch(_ batch: [PendingFact]) async throws -> [IngestResult] {
        // Timed once with its restarts, so a rolled-back attempt adds no sample of its own.
        try await LedgerMetrics.timed(metrics.append) {
            try await withPreviousOwners { owners, mayRestart in
                try await self.recordBatch(batch, previousOwners: owners, mayRestart: mayRestart)
            }
        }
    }

    private func recordBatch(_ batch: [PendingFact], previousOwners: [String], mayRestart: Bool) async throws -> [IngestResult] {
        let events = batch.map(\.event)
        let order = batch.indices.sorted { (batch[$0].stream, $0) < (batch[$1].stream, $1) }
        // The locks the batch will need are taken in its first statement: the heads of the facts',
        // the claimants' and the previous owners' streams, then the documents. A duplicate's
        // documents are locked for nothing, which costs less than another round trip.
        let touched = Self.documents(touchedBy: batch, previousOwners: previousOwners)
        let streams = batch.map(\.stream) + (batch.flatMap(\.claims).map(\.userId) + previousOwners).map(LedgerEventType.userStream)
        let keys = events.compactMap(\.dedupeKey)
        let (appended, refused) = try await store.transaction { transaction -> ([AppendedEvent?], [Int: [String]]) in
            var appended: [AppendedEvent?] = Array(repeating: nil, count: batch.count)
            var refused: [Int: [String]] = [:]
            try await TransactionDocuments.withDocuments(transaction, prefetch: touched, beforeAppendingTo: streams, dedupeKeys: keys) { documents in
                try await self.lockPreviousOwners(against: batch.flatMap(\.claims), held: previousOwners, mayRestart: mayRestart, documents: documents) { claim in
                    try await Self.mayTransfer(claim, in: batch, documents: documents)
                }
                let results = try await transaction.append(order.map { StreamAppend(stream: batch[$0].stream, events: [events[$0]]) })
                for (index, result) in zip(order, results) {
                    appended[index] = result.events.first
                }
                // New facts, and duplicates whose caller claims their chain, in the order they arrived.
                let entries = batch.indices.compactMap { index -> FoldEntry? in
                    guard let event = appended[index] else { return nil }
                    guard !event.isDuplicate || batch[index].claims.contains(where: \.isExplicit) else { return nil }
                    return FoldEntry(index: index, pending: batch[index], event: event)
                }
                guard !entries.isEmpty else { return }
                refused = try await self.fold(entries, in: transaction, documents: documents)
            }
            return (appended, refused)
        }
        return try appended.enumerated().map { index, event in
            guard let event else { throw EventStoreError(.databaseError, "append returned no outcome") }
            return IngestResult(
                isDuplicate: event.isDuplicate, eventID: event.eventID.lowercaseString, position: event.position,
                refusedChains: refused[index] ?? [], streamID: event.streamID, streamVersion: event.streamVersion
            )
        }
    }

    /// A fact of a batch to fold (when new) and whose claims to decide.
    private struct FoldEntry: Sendable {
        let index: Int
        let pending: PendingFact
        let event: AppendedEvent
    }

    /// Folds new facts in order, then decides their claims in order (each sees the owners the
    /// earlier ones left; a duplicate only its explicit claims), appends every link at once and folds
    /// them. Facts change chain documents and links owner and user documents, so folding the links
    /// after the facts ends the same. Returns, by batch index, the explicit claims `keep` refused.
    private func fold(_ entries: [FoldEntry], in transaction: any ProjectionTransaction, documents: TransactionDocuments) async throws -> [Int: [String]] {
        var owners: [String: String] = [:]
        var records: [(link: UserLink, event: NewEvent)] = []
        var refused: [Int: [String]] = [:]
        let now = clock.now()
        for entry in entries {
            let pending = entry.pending
            // A token claims a chain only if this fact makes it the token of the chain's newest
            // transaction (whatever brought the chain's other transactions, a submission included).
            // So a renewal carrying the token the chain's newest transaction already had claims
            // nothing: it cannot take back a chain a submission moved, nor record another refusal
            // under `keep`. And a late notification about an older transaction claims nothing: the
            // chain ends with its newest transaction's token in any arrival order.
            var claiming: [String: String] = [:]
            for claim in pending.claims where !claim.isExplicit && !entry.event.isDuplicate {
                let before = try await documents.chainState(claim.chain)
                if let newest = Self.tokenTakingOver(with: pending, before: before, eventID: entry.event.eventID.lowercaseString) {
                    claiming[claim.chain] = newest
                    if newest != claim.userId {
                        // Only with inputs Apple does not sign (a transaction seen with two tokens, or
                        // with two purchase dates): the newest token changed to one this fact does not
                        // carry, so nobody claims. Logged, since the owner then stays as it was.
                        logger(for: pending.context).warning("appAccountToken claim skipped: the chain's newest token is not this fact's", metadata: [
                            "chain": "\(claim.chain)", "token": "\(claim.userId)", "newest": "\(newest)",
                        ])
                    }
                }
            }
            if !entry.event.isDuplicate {
                let projectable = ProjectableEvent(
                    eventID: entry.event.eventID.lowercaseString, streamID: pending.stream, position: entry.event.position,
                    recordedAt: Self.recordedAt(entry.event, fallback: pending.receivedAt), body: .fact(pending.fact)
                )
                try await projector.apply(projectable, to: documents)
            }
            for claim in pending.claims where claim.isExplicit || !entry.event.isDuplicate {
                if !claim.isExplicit, claiming[claim.chain] != claim.userId { continue }
                let owner = if let decided = owners[claim.chain] {
                    decided
                } else {
                    try await documents.lockAndReadOwner(chain: claim.chain)?.userId
                }
                guard let outcome = try decide(claim, owner: owner, now: now, context: pending.context) else { continue }
                owners[claim.chain] = outcome.owner
                records += outcome.records
                if claim.isExplicit, outcome.records.first?.link.outcome == .rejected {
                    refused[entry.index, default: []].append(claim.chain)
                }
            }
        }
        try await record(records, now: now, in: transaction, documents: documents)
        return refused
    }

    /// Runs a write, first with no previous owners to lock up front, then, each time a claim in it
    /// would transfer a chain from users it did not lock (`PreviousOwnersUnlocked`), again with them.
    /// The owner is read under the owner document's lock, so it is known only once the first
    /// statement has run; locking it there, in sorted order with the rest, keeps two transfers
    /// between the same users from deadlocking. Only a write whose owners keep changing runs out of
    /// restarts (`LedgerConfiguration.previousOwnerRestarts`); it then locks them late, as
    /// `lockPreviousOwners` says.
    func withPreviousOwners<T: Sendable>(_ write: (_ owners: [String], _ mayRestart: Bool) async throws -> T) async throws -> T {
        var owners: Set<String> = []
        var restarts = 0
        while true {
            do {
                return try await write(owners.sorted(), restarts < configuration.previousOwnerRestarts)
            } catch let unlocked as PreviousOwnersUnlocked {
                owners.formUnion(unlocked.owners)
                restarts += 1
            }
        }
    }

    /// Locks the stream and document of every user a claim could take a chain from, before anything
    /// is appended: the transaction's `recorded_at` is taken at its first append, and a transfer's
    /// unlink taking them later could wait there, committing long after its stamp, so `as_of`
    /// answers already given would change (multi-instance walkthrough: 2 s). A claimant's own stream
    /// and document are locked already, and so are the owners in `held`; under `keep` nothing is
    /// taken, nor for a claim `mayTransfer` says cannot move its chain. Any other owner ends the
    /// transaction with `PreviousOwnersUnlocked` while `mayRestart`, so the write runs again with it
    /// locked in its first statement; past that it is locked here, after the rest (two transfers
    /// between the same users can then deadlock, and PostgreSQL breaks the cycle after
    /// `deadlock_timeout`).
    func lockPreviousOwners(
        against claims: [LinkClaim], held: [String], mayRestart: Bool, documents: TransactionDocuments,
        mayTransfer: (LinkClaim) async throws -> Bool = { _ in true }
    ) async throws {
        guard configuration.linkPolicy == .transfer, !claims.isEmpty else { return }
        let locked = Set(claims.map(\.userId)).union(held)
        var owners: Set<String> = []
        for claim in claims {
            if let owner = try await documents.lockAndReadOwner(chain: claim.chain)?.userId, !locked.contains(owner),
               !owners.contains(owner), try await mayTransfer(claim) {
                owners.insert(owner)
            }
        }
        guard !owners.isEmpty else { return }
        if mayRestart { throw PreviousOwnersUnlocked(owners: owners) }
        let sorted = owners.sorted()
        try await documents.prefetch(
            sorted.map { DocumentKey(model: ReadModel.userEntitlements, key: $0) },
            beforeAppendingTo: sorted.map(LedgerEventType.userStream)
        )
    }

    /// The token that `pending`'s fact makes the one of the newest transaction of the chain `before`
    /// is, if it changes it: what a token's claim takes the chain for (see `fold`).
    static func tokenTakingOver(with pending: PendingFact, before: ChainState, eventID: String) -> String? {
        var after = before
        after.apply(pending.fact, eventID: eventID, stream: pending.stream)
        guard let newest = after.newestAppAccountToken, newest != before.newestAppAccountToken else { return nil }
        return newest
    }

    /// Whether deciding `claim` in `batch` could move its chain from its owner, judged before the
    /// batch's appends: always for an explicit claim; for a token's claim, when its fact makes that
    /// token the one of the chain's newest transaction against the chain as stored (as `fold` will
    /// decide), or when another fact of the batch names the chain too (their order could then
    /// matter). So every owner `fold` may unlink is locked up front, while a renewal carrying the
    /// token of a chain a submission moved to another user, a resent fact or a late notification
    /// does not make the write run again for an owner it will not touch.
    static func mayTransfer(_ claim: LinkClaim, in batch: [PendingFact], documents: TransactionDocuments) async throws -> Bool {
        guard !claim.isExplicit else { return true }
        guard batch.count(where: { $0.fact.chains.contains(claim.chain) }) == 1 else { return true }
        let before = try await documents.chainState(claim.chain)
        return batch.contains { pending in
            pending.claims.contains(claim) && tokenTakingOver(with: pending, before: before, eventID: "") == claim.userId
        }
    }

    /// The documents recording facts and their claims will lock, in the order every path takes them:
    /// chains, then owners, then users (the claimants and the previous owners known to the write),
    /// each sorted. So concurrent ingests queue rather than deadlock (but for a transfer that ran
    /// out of restarts, see `lockPreviousOwners`).
    static func documents(touchedBy batch: [PendingFact], previousOwners: [String]) -> [DocumentKey] {
        let claims = batch.flatMap(\.claims)
        let chains = batch.reduce(into: Set<String>()) { $0.formUnion($1.fact.chains) }
        return chains.sorted().map { DocumentKey(model: ReadModel.subscriptionState, key: $0) }
            + Set(claims.map(\.chain)).sorted().map { DocumentKey(model: ReadModel.chainOwner, key: $0) }
            + Set(claims.map(\.userId) + previousOwners).sorted().map { DocumentKey(model: ReadModel.userEntitlements, key: $0) }
    }

    /// The chains the users named by the fact's `appAccountToken`s claim (when enabled), one claim per
    /// chain by the token of the fact's newest transaction on it, in chain order. Each is decided only
    /// if the fact makes that token the one of the chain's newest transaction (see `fold`).
    func appAccountTokenClaims(in fact: AppleFact) -> [LinkClaim] {
        guard configuration.linkAppAccountToken else { return [] }
        var chains: [String: ChainState] = [:]
        for transaction in fact.transactions {
            let id = transaction.originalTransactionId
            chains[id, default: ChainState(originalTransactionId: id)].apply(transaction, eventID: "")
        }
        return chains.keys.sorted().compactMap { id in
            chains[id]?.newestAppAccountToken.map {
                LinkClaim(chain: id, userId: $0, source: "app_account_token")
            }
        }
    }

    /// The environment a legacy input (a V1 notification, a receipt) states, as `Normalizer` records
    /// it; refuses the input when its app is not configured or does not accept that environment, as
    /// the verifier refuses signed inputs. So what is checked is what the fact will say.
    func acceptedEnvironment(_ stated: LegacyEnvironment?, bundleId: String?, of kind: String) throws -> String {
        guard let bundleId, let app = verifier.app(bundleId: bundleId) else {
            throw LedgerError(.unknownApp, "\(kind) bundle id \(bundleId ?? "(missing)") is not a configured app")
        }
        guard let environment = Normalizer.environment(stated) else {
            throw LedgerError(.environmentNotAccepted, "\(kind) states no environment, so it cannot be checked against \(bundleId)'s")
        }
        guard app.accepts(AppStoreEnvironment(rawValue: environment)) else {
            throw LedgerError(.environmentNotAccepted, "\(kind) environment \(environment) is not accepted for \(bundleId)")
        }
        return environment
    }

    /// Refuses a V1 body that names a subscription another app's facts describe. The body is
    /// proven only by app `bundleId`'s shared secret, so it must not cancel another app's
    /// subscription. Read before the append, not under its lock: a chain first recorded between the
    /// two is not checked (V1 is deprecated and rare; the window is one request).
    func refuseOtherAppsChains(_ chains: Set<String>, bundleId: String) async throws {
        for chain in chains.sorted() {
            guard let data = try await store.document(model: ReadModel.subscriptionState, key: chain) else { continue }
            let state = try ChainDocument.decode(from: data).state
            if let other = state.transactions.values.lazy.compactMap(\.value.bundleId).first(where: { $0 != bundleId }) {
                throw LedgerError(.bundleMismatch, "the V1 notification for \(bundleId) names subscription \(chain), which is \(other)'s")
            }
        }
    }

    /// A submission whose claim `keep` refused answers `link_conflict`; the fact and the refused link
    /// are recorded all the same.
    static func refuseIfKept(_ result: IngestResult) throws {
        guard let chain = result.refusedChains.first else { return }
        throw LedgerError(.linkConflict, "subscription \(chain) belongs to another user and the linking policy is keep")
    }

    /// The time a just-appended event was stored with, as a replay will read it (`fallback` only if
    /// the store did not say).
    static func recordedAt(_ event: AppendedEvent, fallback: Date) -> Int64 {
        Timestamp.milliseconds(event.recordedAt ?? fallback)
    }

    /// Whether `id` can be a user id: 1 to 256 Unicode scalars (code points, as JSON Schema counts
    /// `maxLength`; so at most 1 KiB of UTF-8) in Normalization Form C, none of them control
    /// characters (the rule the HTTP API holds a submitted `user_id` and a path's id to).
    ///
    /// NFC because Swift compares strings by canonical equivalence and the databases by bytes:
    /// `café` precomposed and decomposed would be one key in the ledger's dictionaries and caches
    /// and two streams in the store, and a stream could take the other's head.
    public static func isUserId(_ id: String) -> Bool {
        let utf8 = id.utf8
        guard !utf8.isEmpty else { return false }
        // Most ids are ASCII: there a byte is a character, and the control characters are 0-31 and 127,
        // so the Unicode tables (a measurable part of an entitlement read) are not needed.
        if utf8.allSatisfy({ $0 < 0x80 }) {
            return utf8.count <= 256 && !utf8.contains { $0 < 0x20 || $0 == 0x7F }
        }
        return id.unicodeScalars.count <= 256 && !id.unicodeScalars.contains { $0.properties.generalCategory == .control }
            && id.utf8.elementsEqual(id.precomposedStringWithCanonicalMapping.utf8)
    }

    static func sha256(_ data: Data) -> String {
        Hex.string(SHA256.hash(data: data))
    }

    /// Compares secrets without an early exit, so response time does not reveal how much matched.
    static func constantTimeEquals(_ lhs: String, _ rhs: String) -> Bool {
        let left = Array(lhs.utf8)
        let right = Array(rhs.utf8)
        var difference = UInt8(left.count == right.count ? 0 : 1)
        for index in 0..<max(left.count, right.count) {
            let a = index < left.count ? left[index] : 0
            let b = index < right.count ? right[index] : 0
            difference |= a ^ b
        }
        return difference == 0
    }
}
