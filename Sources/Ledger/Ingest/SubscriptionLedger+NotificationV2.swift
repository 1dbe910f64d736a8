import AppStore
import EventStore
import Foundation
import Logging

extension SubscriptionLedger {
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
}
