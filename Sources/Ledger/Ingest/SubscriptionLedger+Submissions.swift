import AppStore
import EventStore
import Foundation

extension SubscriptionLedger {
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
}
