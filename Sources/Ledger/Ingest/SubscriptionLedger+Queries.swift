import EventStore
import Foundation

extension SubscriptionLedger {
    /// What the ledger knows now about a user, evaluated at `at` (read models, no fold).
    public func entitlements(userId: String, at: Date) async throws -> UserEntitlements {
        try await LedgerMetrics.timed(metrics.readEntitlements) { try await readEntitlements(userId: userId, at: at) }
    }

    /// The user's read model, or an empty one for a user the ledger has never seen.
    private func userDocument(_ userId: String) async throws -> UserDocument {
        try await store.document(model: ReadModel.userEntitlements, key: userId)
            .map { try UserDocument.decode(from: $0) }
            ?? UserDocument(state: UserState(userId: userId), position: 0)
    }

    /// One read of the user's document and its chains' documents (one query on PostgreSQL).
    private func readEntitlements(userId: String, at: Date) async throws -> UserEntitlements {
        guard let read = try await store.document(
            model: ReadModel.userEntitlements, key: userId,
            relatedModel: ReadModel.subscriptionState, keysAt: ["state", "chains"]
        ) else {
            return evaluator.evaluate(user: UserState(userId: userId), chains: [], at: at, position: 0)
        }
        let user = try UserDocument.decode(from: read.data)
        var chains: [ChainState] = []
        var position = user.position
        for related in read.related {
            let document = try ChainDocument.decode(from: related.data)
            chains.append(document.state)
            position = max(position, document.position)
        }
        return evaluator.evaluate(user: user.state, chains: chains, at: at, position: position)
    }

    /// What the ledger knew at recorded time `asOf`, by folding the user's events and their chains'
    /// events recorded up to then, evaluated at `at` (by default `asOf` itself): "what did we believe
    /// on the 1st about the 25th".
    public func entitlements(userId: String, asOf: Date, at: Date? = nil) async throws -> UserEntitlements {
        try await LedgerMetrics.timed(metrics.readAsOf) { try await foldEntitlements(userId: userId, asOf: asOf, at: at) }
    }

    private func foldEntitlements(userId: String, asOf: Date, at: Date?) async throws -> UserEntitlements {
        let cutoff = Timestamp.milliseconds(asOf)
        var user = UserState(userId: userId)
        var position: Int64 = 0
        var facts: [ProjectableEvent] = []
        // One decoder for every event of the fold (links and grants go through it), not one each.
        let decoder = JSONDecoder()
        // Filtered, not cut at the first later event: `recorded_at` is a transaction's clock reading at
        // its first append, and a stream can still hold a later-stamped event before an earlier one:
        // instances whose clocks disagree, or an older build on the same database, which stamped
        // before waiting for a new stream's other creator.
        for event in try await store.readStream(LedgerEventType.userStream(userId)) {
            let projectable = try ProjectableEvent(event, decoder: decoder)
            guard projectable.recordedAt <= cutoff else { continue }
            position = max(position, projectable.position)
            switch projectable.body {
            case .link(let link): user.apply(link, at: projectable.recordedAt)
            case .grant(let grant): user.grant(grant)
            case .revoke(let revoke): user.revoke(revoke)
            case .fact: facts.append(projectable)
            case .other: break
            }
        }
        var chains: [String: ChainState] = [:]
        var chainStreams: [String] = []
        var others: Set<String> = []
        for chain in user.chains.keys.sorted() {
            chains[chain] = ChainState(originalTransactionId: chain)
            chainStreams.append(LedgerEventType.chainStream(chain))
            // The streams besides the chain's own that hold facts about it, as the live document
            // knows them now (a superset of what was known at `asOf`; the cutoff below applies).
            if let data = try await store.document(model: ReadModel.subscriptionState, key: chain) {
                others.formUnion(try ChainDocument.decode(from: data).state.otherStreams)
            }
        }
        others.subtract(chainStreams + [LedgerEventType.userStream(userId)])
        for stream in chainStreams + others.sorted() {
            for event in try await store.readStream(stream) {
                let projectable = try ProjectableEvent(event, decoder: decoder)
                guard projectable.recordedAt <= cutoff else { continue }
                if case .fact = projectable.body { facts.append(projectable) }
            }
        }
        // As the live projector does, each fact counts for every chain it names: a receipt on the
        // user's stream or another's, or a V1 notification (kept on one chain's stream) naming others.
        for projectable in facts {
            guard case .fact(let fact) = projectable.body else { continue }
            for chain in fact.chains where chains[chain] != nil {
                chains[chain]?.apply(fact, eventID: projectable.eventID, stream: projectable.streamID)
                position = max(position, projectable.position)
            }
        }
        let ordered = chains.keys.sorted().compactMap { chains[$0] }
        return evaluator.evaluate(user: user, chains: ordered, at: at ?? asOf, asOf: asOf, position: position)
    }

    /// One chain evaluated at `at`, or nil if the ledger has never seen it.
    public func chain(originalTransactionId: String, at: Date) async throws -> ChainEvaluation? {
        try await LedgerMetrics.timed(metrics.readChain) {
            guard let data = try await store.document(model: ReadModel.subscriptionState, key: originalTransactionId) else { return nil }
            let document = try ChainDocument.decode(from: data)
            return ChainEvaluator(catalog: configuration.catalog).evaluate(document.state, at: at)
        }
    }

    /// The user who owns the chain now, or nil if no user has claimed it. The read model keeps only
    /// the current link (the event log has every one), so this does not depend on a moment.
    public func chainOwner(originalTransactionId: String) async throws -> String? {
        try await LedgerMetrics.timed(metrics.readChainOwner) {
            try await store.document(model: ReadModel.chainOwner, key: originalTransactionId)
                .map { try OwnerDocument.decode(from: $0).userId }
        }
    }

    /// The events about a user: their own stream and the streams of the chains they own now, in log
    /// order after `after`, paged like the global feed (the same cursors, and an event that commits
    /// late is not skipped).
    ///
    /// The owned chains and the page are two reads. A chain linked between them has its link on the
    /// page and its own events (committed with the link, just before it) not, and the cursor would
    /// move past them for good; so the owned chains are read again after the page, and the page
    /// again with any chain that read adds. A chain named only by a link on the page is not added:
    /// the user may have lost it since, and its later events are its new owner's.
    public func userEvents(userId: String, after: EventCursor?, limit: Int) async throws -> EventPage {
        try await LedgerMetrics.timed(metrics.readUserEvents) {
            let userStream = LedgerEventType.userStream(userId)
            var chains = Set(try await userDocument(userId).state.chains.keys)
            while true {
                let streams = [userStream] + chains.sorted().map(LedgerEventType.chainStream)
                let page = try await store.readAll(streams: streams, after: after ?? .start, limit: limit)
                let missing = Set(try await userDocument(userId).state.chains.keys).subtracting(chains)
                // Each round adds a chain the user owns: this ends unless links keep coming faster.
                guard !missing.isEmpty else { return page }
                chains.formUnion(missing)
            }
        }
    }

    /// The user's manual grants as the user's read model holds them, revoked and ended ones too,
    /// the earliest made first (then by id): what an operator looks through to revoke one.
    public func grants(userId: String) async throws -> [UserState.Grant] {
        try await LedgerMetrics.timed(metrics.readGrants) {
            try await userDocument(userId).state.grants.values.sorted { ($0.grant.at, $0.grant.grantId) < ($1.grant.at, $1.grant.grantId) }
        }
    }

    /// A page of the global event log after `after`, in commit order (the auditors' feed).
    public func events(after: EventCursor, limit: Int) async throws -> EventPage {
        try await LedgerMetrics.timed(metrics.readEvents) { try await store.readAll(after: after, limit: limit) }
    }
}
