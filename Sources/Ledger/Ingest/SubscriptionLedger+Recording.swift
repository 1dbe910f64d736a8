import AppStore
import EventStore
import Foundation
import Logging

extension SubscriptionLedger {
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
        try Self.refuseIdsHoldingNUL(fact, stream: stream, dedupeKey: dedupeKey)
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

    /// Subscription ids name streams and documents, and no stored name can hold U+0000 (PostgreSQL
    /// refuses it, SQLite reads it back cut short): a fact naming one is refused before its write,
    /// and so fails only its own request, not the batch it would have shared.
    static func refuseIdsHoldingNUL(_ fact: AppleFact, stream: String, dedupeKey: String) throws {
        func refuse(_ id: String, _ what: String) throws {
            guard !StoredName.isStorable(id) else { return }
            throw LedgerError(.malformedBody, "the \(what) \(id.debugDescription) holds U+0000 (NUL), which no id can")
        }
        for transaction in fact.transactions {
            try refuse(transaction.originalTransactionId, "subscription id")
            try refuse(transaction.transactionId, "transaction id")
        }
        for renewal in fact.renewals { try refuse(renewal.originalTransactionId, "subscription id") }
        // Named from other fields (a notification's UUID, a receipt's user).
        try refuse(stream, "stream")
        try refuse(dedupeKey, "dedupe key")
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
}
