/// The fold state of one subscription chain (one `originalTransactionId`): for each transaction the
/// latest observation, and every renewal observation.
///
/// A transaction keeps the maximum by assertion time, then what the observation says happened, then event id, and the renewal observations form a
/// set ordered by the same key; both are commutative, associative and idempotent, so the state is a
/// function of the set of events: a late DID_RENEW, a duplicate or a replay can never move it
/// backwards. Status is not stored; it is evaluated at read time.
public struct ChainState: Codable, Hashable, Sendable {
    public var originalTransactionId: String
    public var transactions: [String: Observed<TransactionObservation>]
    /// Every renewal observation, oldest first by (assertion time, event id). Renewal info describes
    /// the moment Apple signed it, so evaluating a past moment needs the one current then.
    public var renewals: [Observed<RenewalObservation>]
    /// The streams besides the chain's own that hold facts about it, sorted: a receipt is kept on
    /// its submitter's stream, a V1 notification on one of the subscriptions it names. `as_of` reads
    /// them, since only the chain's own stream is found by its id. Empty for most chains.
    public var otherStreams: [String]
    /// The `appAccountToken` each transaction's observations carried, by transaction id (on a
    /// conflict, which Apple's signed data does not have, see `prefers`). Kept apart from the winning observations, so one that wins without the
    /// token (a V1 body's, whose token is not kept) does not make the chain forget it. The newest
    /// transaction's token is the one that can claim the chain (``newestAppAccountToken``).
    /// Empty for most chains.
    public var transactionTokens: [String: String]

    /// An empty chain.
    public init(originalTransactionId: String) {
        self.originalTransactionId = originalTransactionId
        self.transactions = [:]
        self.renewals = []
        self.otherStreams = []
        self.transactionTokens = [:]
    }

    /// The renewal observation current at `at` (Unix milliseconds): the latest asserted by then; nil
    /// when Apple had said nothing about the renewal by then.
    public func renewal(at: Int64) -> Observed<RenewalObservation>? {
        renewals.last { $0.assertedAt <= at }
    }

    /// Folds in one transaction observation from event `eventID`.
    ///
    /// The kept observation's `type` is the preferred one of every observation of the transaction
    /// (`ProductType.preferred`), not only the winner's: a receipt asserted after a signed
    /// transaction must not turn Apple's `Consumable` into the receipt's fallback `Non-Consumable`.
    public mutating func apply(_ observation: TransactionObservation, eventID: String) {
        var observed = Observed(observation, assertedAt: observation.assertedAt, eventID: eventID)
        if let token = observation.appAccountToken, transactionTokens[observation.transactionId].map({ Self.prefers(token, over: $0) }) ?? true {
            transactionTokens[observation.transactionId] = token
        }
        if var current = transactions[observation.transactionId] {
            let type = ProductType.preferred(current.value.type, observation.type)
            guard Self.supersedes(observed, current) else {
                if type != current.value.type {
                    current.value.type = type
                    transactions[observation.transactionId] = current
                }
                return
            }
            observed.value.type = type
        }
        transactions[observation.transactionId] = observed
    }

    /// Of two tokens seen on one transaction (Apple signs one; this only keeps the choice a function
    /// of the set), one that can claim beats one that cannot, then the greater: a token no user can
    /// have must not hide one that claims.
    static func prefers(_ token: String, over kept: String) -> Bool {
        (canClaim(token) ? 1 : 0, token) > (canClaim(kept) ? 1 : 0, kept)
    }

    /// Whether a token names a user: only one that could be a submitted `user_id` (the API could not
    /// address any other), 1 to 256 characters, no control characters.
    static func canClaim(_ token: String) -> Bool {
        SubscriptionLedger.isUserId(token)
    }

    /// Inserts `element` into the sorted, duplicate-free `list`.
    static func insert(_ element: String, into list: inout [String]) {
        let index = list.firstIndex { $0 >= element } ?? list.count
        if index == list.count || list[index] != element {
            list.insert(element, at: index)
        }
    }

    /// Whether one observation of a transaction beats another: the later assertion; on equal ones
    /// (two V1 notifications are both dated by the entry's own dates) the one that says more has
    /// happened, a revocation, then a later expiry; then what else they say, leaving out `type`
    /// (the kept observation's is every observation's preferred one); then the event id. A function
    /// of the pair alone, so the winner never depends on arrival order.
    static func supersedes(_ lhs: Observed<TransactionObservation>, _ rhs: Observed<TransactionObservation>) -> Bool {
        guard lhs.assertedAt == rhs.assertedAt else { return lhs.assertedAt > rhs.assertedAt }
        let left = (lhs.value.revocationDate == nil ? 0 : 1, lhs.value.expiresDate ?? Int64.min)
        let right = (rhs.value.revocationDate == nil ? 0 : 1, rhs.value.expiresDate ?? Int64.min)
        guard left == right else { return left > right }
        return lhs.supersedes(rhs) { observation in
            var untyped = observation
            untyped.type = ""
            return untyped
        }
    }

    /// Folds in one renewal observation from event `eventID`; one with the key of a kept one is a
    /// replay of it and changes nothing.
    public mutating func apply(_ observation: RenewalObservation, eventID: String) {
        let observed = Observed(observation, assertedAt: observation.assertedAt, eventID: eventID)
        // Usually the newest, so look from the end for the last one it beats.
        let index = renewals.lastIndex { observed.supersedes($0) }.map { $0 + 1 } ?? 0
        if index < renewals.count, !renewals[index].supersedes(observed) { return }
        renewals.insert(observed, at: index)
    }

    /// Folds in every observation of a fact that belongs to this chain, kept on stream `stream`.
    public mutating func apply(_ fact: AppleFact, eventID: String, stream: String) {
        var named = false
        for transaction in fact.transactions where transaction.originalTransactionId == originalTransactionId {
            apply(transaction, eventID: eventID)
            named = true
        }
        for renewal in fact.renewals where renewal.originalTransactionId == originalTransactionId {
            apply(renewal, eventID: eventID)
            named = true
        }
        if named, stream != LedgerEventType.chainStream(originalTransactionId) {
            Self.insert(stream, into: &otherStreams)
        }
    }

    /// The transactions bought by `at` (Unix milliseconds): the only ones that say anything about it.
    public func transactions(boughtBy at: Int64) -> some Sequence<TransactionObservation> {
        transactions.values.lazy.map(\.value).filter { $0.purchaseDate <= at }
    }

    /// The transaction that decides the chain's status at `at` (Unix milliseconds): of those purchased
    /// by then, the one with the latest purchase date, then a non-upgraded one, then the latest
    /// expiry, then the highest transaction id. A transaction bought after `at` says nothing about
    /// `at`; nil when none was bought by then. On an upgrade Apple sends only the new transaction,
    /// and the old period can show a later expiry, so expiry alone would pick the wrong one.
    public func governingTransaction(at: Int64) -> TransactionObservation? {
        Self.latest(of: transactions(boughtBy: at))
    }

    /// The `appAccountToken` of the newest transaction carrying one that can claim (``canClaim(_:)``),
    /// by purchase date and then transaction id (as a number); nil when none carried one.
    ///
    /// A token claims the chain when a fact makes it this token. It depends only on what Apple never
    /// changes for a transaction (unlike the governing transaction, which also weighs an upgrade and
    /// the expiry), so only a fact bringing a newer transaction can change it, and the chain ends
    /// with the newest transaction's token in any arrival order: a late notification about an older
    /// transaction cannot take the chain back.
    public var newestAppAccountToken: String? {
        transactions.values.lazy.compactMap { observed -> (key: (Int64, Int, String), token: String)? in
            let transaction = observed.value
            guard let token = self.appAccountToken(of: transaction), Self.canClaim(token) else { return nil }
            return ((transaction.purchaseDate, transaction.transactionId.count, transaction.transactionId), token)
        }.max { $0.key < $1.key }?.token
    }

    /// The token any observation of `transaction` carried.
    func appAccountToken(of transaction: TransactionObservation) -> String? {
        transactionTokens[transaction.transactionId] ?? transaction.appAccountToken
    }

    /// Of `transactions`, the one that governs (see ``governingTransaction(at:)``).
    static func latest(of transactions: some Sequence<TransactionObservation>) -> TransactionObservation? {
        transactions.max { lhs, rhs in
            (lhs.purchaseDate, lhs.isUpgraded ? 0 : 1, lhs.expiresDate ?? Int64.min, lhs.transactionId.count, lhs.transactionId)
                < (rhs.purchaseDate, rhs.isUpgraded ? 0 : 1, rhs.expiresDate ?? Int64.min, rhs.transactionId.count, rhs.transactionId)
        }
    }

    private enum DecodingKeys: String, CodingKey {
        case originalTransactionId, transactions, renewals, renewal, otherStreams, transactionTokens
    }

    /// Encodes the chain; `otherStreams` and `transactionTokens` only when there are some, so a chain
    /// without them reads as it did before the fields existed.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: DecodingKeys.self)
        try container.encode(originalTransactionId, forKey: .originalTransactionId)
        try container.encode(transactions, forKey: .transactions)
        try container.encode(renewals, forKey: .renewals)
        if !otherStreams.isEmpty { try container.encode(otherStreams, forKey: .otherStreams) }
        if !transactionTokens.isEmpty { try container.encode(transactionTokens, forKey: .transactionTokens) }
    }

    /// Decodes a chain, also as written before renewal history was kept (one `renewal`, the latest).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: DecodingKeys.self)
        self.originalTransactionId = try container.decode(String.self, forKey: .originalTransactionId)
        self.transactions = try container.decode([String: Observed<TransactionObservation>].self, forKey: .transactions)
        if let renewals = try container.decodeIfPresent([Observed<RenewalObservation>].self, forKey: .renewals) {
            self.renewals = renewals
        } else {
            self.renewals = try container.decodeIfPresent(Observed<RenewalObservation>.self, forKey: .renewal).map { [$0] } ?? []
        }
        self.otherStreams = try container.decodeIfPresent([String].self, forKey: .otherStreams) ?? []
        // A document written before tokens were kept by transaction (an `appAccountTokens` list) has
        // its winning observations' tokens, which `appAccountToken(of:)` falls back to.
        self.transactionTokens = try container.decodeIfPresent([String: String].self, forKey: .transactionTokens) ?? [:]
    }
}
