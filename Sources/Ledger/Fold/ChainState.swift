/// The fold state of one subscription chain (one `originalTransactionId`): for each transaction the
/// latest observation, and the latest renewal observation.
///
/// `apply` keeps the maximum by (assertion time, event id), which is commutative, associative and
/// idempotent, so the state is a function of the set of events: a late DID_RENEW, a duplicate or a
/// replay can never move it backwards. Status is not stored; it is evaluated at read time.
public struct ChainState: Codable, Hashable, Sendable {
    public var originalTransactionId: String
    public var transactions: [String: Observed<TransactionObservation>]
    public var renewal: Observed<RenewalObservation>?

    /// An empty chain.
    public init(originalTransactionId: String) {
        self.originalTransactionId = originalTransactionId
        self.transactions = [:]
        self.renewal = nil
    }

    /// Folds in one transaction observation from event `eventID`.
    public mutating func apply(_ observation: TransactionObservation, eventID: String) {
        let observed = Observed(observation, assertedAt: observation.assertedAt, eventID: eventID)
        if let current = transactions[observation.transactionId], !observed.supersedes(current) { return }
        transactions[observation.transactionId] = observed
    }

    /// Folds in one renewal observation from event `eventID`.
    public mutating func apply(_ observation: RenewalObservation, eventID: String) {
        let observed = Observed(observation, assertedAt: observation.assertedAt, eventID: eventID)
        if let current = renewal, !observed.supersedes(current) { return }
        renewal = observed
    }

    /// Folds in every observation of a fact that belongs to this chain.
    public mutating func apply(_ fact: AppleFact, eventID: String) {
        for transaction in fact.transactions where transaction.originalTransactionId == originalTransactionId {
            apply(transaction, eventID: eventID)
        }
        for renewal in fact.renewals where renewal.originalTransactionId == originalTransactionId {
            apply(renewal, eventID: eventID)
        }
    }

    /// The transaction that decides the chain's status: the non-upgraded one with the latest purchase
    /// date, then the latest expiry. On an upgrade Apple sends only the new transaction, and the old
    /// period can show a later expiry, so expiry alone would pick the wrong one.
    public var governingTransaction: TransactionObservation? {
        let candidates = transactions.values.map(\.value)
        let current = candidates.filter { !$0.isUpgraded }
        return (current.isEmpty ? candidates : current).max { lhs, rhs in
            (lhs.purchaseDate, lhs.expiresDate ?? Int64.min, lhs.transactionId)
                < (rhs.purchaseDate, rhs.expiresDate ?? Int64.min, rhs.transactionId)
        }
    }
}
