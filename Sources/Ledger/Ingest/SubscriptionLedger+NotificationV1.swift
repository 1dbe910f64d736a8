import AppStore
import EventStore
import Foundation
import Logging

extension SubscriptionLedger {
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
}
