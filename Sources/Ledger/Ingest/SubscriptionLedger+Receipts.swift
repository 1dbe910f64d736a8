import AppStore
import EventStore
import Foundation
import Logging

extension SubscriptionLedger {
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
}
