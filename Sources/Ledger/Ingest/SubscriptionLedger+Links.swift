import AppStore
import EventStore
import Foundation
import Logging

extension SubscriptionLedger {
    /// Claims a chain for a user under the configured policy and records the outcome.
    ///
    /// Nothing is recorded when the user already owns the chain. Under `keep`, a claim on another
    /// user's chain is recorded as rejected and then refused with `link_conflict`. The claim is
    /// decided under the owner document's lock, as a fact's claims are, and a transfer's link and the
    /// previous owner's unlink commit together.
    public func link(userId: String, originalTransactionId chain: String, source: String, context: IngestContext) async throws -> UserLink? {
        let claim = LinkClaim(chain: chain, userId: userId, source: source, isExplicit: true)
        let link = try await withPreviousOwners { previousOwners, mayRestart in
            let users = Set([userId] + previousOwners).sorted()
            let touched = [DocumentKey(model: ReadModel.chainOwner, key: chain)] + users.map { DocumentKey(model: ReadModel.userEntitlements, key: $0) }
            return try await store.transaction { transaction -> UserLink? in
                let now = clock.now()
                var decided: ClaimOutcome?
                try await TransactionDocuments.withDocuments(
                    transaction, prefetch: touched, beforeAppendingTo: users.map(LedgerEventType.userStream)
                ) { documents in
                    let owner = try await documents.lockAndReadOwner(chain: chain)?.userId
                    try await self.lockPreviousOwners(against: [claim], held: previousOwners, mayRestart: mayRestart, documents: documents)
                    decided = try self.decide(claim, owner: owner, now: now, context: context)
                    try await self.record(decided?.records ?? [], now: now, in: transaction, documents: documents)
                }
                return decided?.records.first?.link
            }
        }
        if link?.outcome == .rejected {
            throw LedgerError(.linkConflict, "subscription \(chain) belongs to another user and the linking policy is keep")
        }
        return link
    }

    /// A claim decided inside an open transaction: the link event to append (and, for a transfer,
    /// the previous owner's unlink), with the links as the projector will fold them.
    struct ClaimOutcome: Sendable {
        var records: [(link: UserLink, event: NewEvent)]
        /// Who owns the chain once these are recorded.
        var owner: String
    }

    /// Decides a claim on a chain owned by `owner` (read under the owner document's lock, or decided
    /// earlier in the same transaction) under the linking policy; nil when the user already owns it.
    /// A claim the `keep` policy refuses is recorded as rejected and logged; it does not fail the
    /// transaction it rides in.
    func decide(_ claim: LinkClaim, owner: String?, now: Date, context: IngestContext) throws -> ClaimOutcome? {
        if owner == claim.userId { return nil }
        let outcome: UserLink.Outcome = owner == nil ? .linked : (configuration.linkPolicy == .transfer ? .transferred : .rejected)
        let link = UserLink(userId: claim.userId, originalTransactionId: claim.chain, source: claim.source, outcome: outcome, previousUserId: owner)
        let event = NewEvent.ledger(type: LedgerEventType.userLinked, data: link.encodedJSON(), receivedAt: now, context: context)
        var records = [(link: link, event: event)]
        if outcome == .transferred, let previous = owner {
            let unlink = UserLink(userId: previous, originalTransactionId: claim.chain, source: claim.source, outcome: .unlinked, previousUserId: nil)
            let unlinkEvent = NewEvent.ledger(
                type: LedgerEventType.userUnlinked, data: unlink.encodedJSON(), receivedAt: now, context: context,
                dedupeKey: "unlink:\(event.eventID.lowercaseString)"
            )
            records.append((link: unlink, event: unlinkEvent))
        }
        if outcome == .rejected {
            logger(for: context).info("\(claim.source) claim refused", metadata: [
                "chain": "\(claim.chain)", "user": "\(claim.userId)",
            ])
            return ClaimOutcome(records: records, owner: owner ?? claim.userId)
        }
        return ClaimOutcome(records: records, owner: claim.userId)
    }

    /// Appends decided links to their users' streams in one multi-stream append and folds the new ones.
    func record(_ records: [(link: UserLink, event: NewEvent)], now: Date, in transaction: any ProjectionTransaction, documents: TransactionDocuments) async throws {
        guard !records.isEmpty else { return }
        let appended = try await transaction.append(records.map { StreamAppend(stream: LedgerEventType.userStream($0.link.userId), events: [$0.event]) })
        for (record, result) in zip(records, appended) {
            guard let event = result.events.first, !event.isDuplicate else { continue }
            try await projector.apply(Self.projectable(record.link, event, now: now), to: documents)
        }
    }

    private static func projectable(_ link: UserLink, _ appended: AppendedEvent, now: Date) -> ProjectableEvent {
        ProjectableEvent(
            eventID: appended.eventID.lowercaseString, streamID: LedgerEventType.userStream(link.userId), position: appended.position,
            recordedAt: recordedAt(appended, fallback: now), body: .link(link)
        )
    }

    // MARK: Manual grants

    /// Grants an entitlement to a user from now until `expiresAt` (promotional access) and returns the
    /// grant. The entitlement must be one a configured product grants (a typo would grant nothing a
    /// backend checks), the end must be in the future and the reason must say why, for the audit.
    public func grant(userId: String, entitlement: String, expiresAt: Date, reason: String, context: IngestContext) async throws -> ManualGrant {
        guard !entitlement.isEmpty else { throw LedgerError(.malformedBody, "entitlement must not be empty") }
        let known = configuration.catalog.allEntitlements
        guard known.contains(entitlement) else {
            throw LedgerError(.unknownEntitlement, "no configured product grants \(entitlement); known: \(known.sorted().joined(separator: ", "))")
        }
        guard !reason.allSatisfy(\.isWhitespace) else { throw LedgerError(.malformedBody, "reason must say why the grant is made") }
        try Self.checkReason(reason)
        let now = clock.now()
        guard expiresAt > now else { throw LedgerError(.malformedBody, "expires_at must be in the future") }
        let grant = ManualGrant(
            grantId: UUID.random().lowercaseString, userId: userId, entitlement: entitlement,
            expiresAt: Timestamp.milliseconds(expiresAt), reason: reason, at: Timestamp.milliseconds(now)
        )
        try await appendGrant(.grant(grant), type: LedgerEventType.entitlementGranted, record: grant, now: now, context: context)
        logGrantChange("grant recorded", grant, context: context)
        return grant
    }

    /// Revokes a manual grant from now on and returns the revocation.
    ///
    /// The grant is looked up in the user's document under its lock, so the check and the append
    /// cannot race another revoke: an unknown grant is refused (`unknown_grant`), one that already
    /// ended is refused (`grant_ended`; revoking it would change nothing), and one already revoked
    /// records nothing and answers the first revocation.
    @discardableResult
    public func revokeGrant(userId: String, grantId: String, reason: String, context: IngestContext) async throws -> GrantRevocation {
        guard !reason.allSatisfy(\.isWhitespace) else { throw LedgerError(.malformedBody, "reason must say why the grant is revoked") }
        try Self.checkReason(reason)
        let stream = LedgerEventType.userStream(userId)
        let userKey = DocumentKey(model: ReadModel.userEntitlements, key: userId)
        let projector = self.projector
        let revocation = try await LedgerMetrics.timed(metrics.appendGrant) {
            try await store.transaction { transaction -> GrantRevocation in
                let now = clock.now()
                let at = Timestamp.milliseconds(now)
                var outcome: GrantRevocation?
                try await TransactionDocuments.withDocuments(transaction, prefetch: [userKey], beforeAppendingTo: [stream]) { documents in
                    guard let record = try await documents.userState(userId).grants[grantId] else {
                        throw LedgerError(.unknownGrant, "user \(userId) has no grant \(grantId)")
                    }
                    if let revokedAt = record.revokedAt {
                        outcome = GrantRevocation(grant: record.grant, revokedAt: revokedAt, reason: record.revokeReason ?? "", isDuplicate: true)
                        return
                    }
                    if let expiresAt = record.grant.expiresAt, expiresAt <= at {
                        throw LedgerError(.grantEnded, "grant \(grantId) ended at \(AppStoreDate(millisecondsSince1970: expiresAt)); there is nothing left to revoke")
                    }
                    let revoke = ManualGrant(
                        grantId: grantId, userId: userId, entitlement: record.grant.entitlement, expiresAt: nil, reason: reason, at: at
                    )
                    let event = try NewEvent.ledger(type: LedgerEventType.entitlementRevoked, body: revoke, receivedAt: now, context: context)
                    let result = try await transaction.append(to: stream, [event], expectedVersion: .any)
                    guard let appended = result.events.first else { throw EventStoreError(.databaseError, "append returned no outcome") }
                    let projectable = ProjectableEvent(
                        eventID: appended.eventID.lowercaseString, streamID: stream, position: appended.position,
                        recordedAt: Self.recordedAt(appended, fallback: now), body: .revoke(revoke)
                    )
                    try await projector.apply(projectable, to: documents)
                    outcome = GrantRevocation(grant: record.grant, revokedAt: at, reason: reason, isDuplicate: false)
                }
                guard let outcome else { throw EventStoreError(.databaseError, "the revoke decided nothing") }
                return outcome
            }
        }
        if !revocation.isDuplicate {
            logGrantChange("grant revoked", revocation.grant, context: context)
        }
        return revocation
    }

    /// An operator's change of access is rare and worth a line beside the request's own.
    private func logGrantChange(_ message: Logger.Message, _ grant: ManualGrant, context: IngestContext) {
        logger(for: context).info(message, metadata: [
            "user": "\(grant.userId)", "grant": "\(grant.grantId)", "entitlement": "\(grant.entitlement)", "api_key": "\(context.apiKey ?? "-")",
        ])
    }

    /// Refuses a reason the user's document should not keep: PostgreSQL's `jsonb` cannot hold
    /// U+0000, so one that reached the document would make every later read of the user fail (tabs
    /// and line breaks are text; other control characters are refused with the rest), and every read
    /// of the user loads it, so it is bounded in length.
    static func checkReason(_ reason: String) throws {
        let allowed: Set<Unicode.Scalar> = ["\t", "\n", "\r"]
        // Control characters are C0, DEL and C1 (re-test: C1 passed, where the Id rule counts them).
        guard !reason.unicodeScalars.contains(where: { ($0.value < 0x20 || (0x7F...0x9F).contains($0.value)) && !allowed.contains($0) }) else {
            throw LedgerError(.malformedBody, "reason must not contain control characters other than tabs and line breaks")
        }
        // Each grant's reason is in the user's document, which every read of the user loads: a
        // reason of a million characters made one user's grants list 1.9 MB (security walkthrough).
        let count = reason.unicodeScalars.count
        guard count <= maximumReasonLength else {
            throw LedgerError(.malformedBody, "reason has \(count) characters; at most \(maximumReasonLength) are taken (say why, and keep the rest, a ticket's text, where the ticket is)")
        }
    }

    /// The most characters (Unicode scalars) a grant's or a revocation's reason may have.
    static let maximumReasonLength = 1000

    private func appendGrant(_ body: ProjectableEvent.Body, type: String, record: ManualGrant, now: Date, context: IngestContext) async throws {
        let event = try NewEvent.ledger(type: type, body: record, receivedAt: now, context: context)
        let projector = self.projector
        let stream = LedgerEventType.userStream(record.userId)
        let touched = [DocumentKey(model: ReadModel.userEntitlements, key: record.userId)]
        _ = try await LedgerMetrics.timed(metrics.appendGrant) {
            try await store.transaction { transaction in
                // The user's stream (a new one by its name) and document are locked before the
                // append, as a revocation's are, and the append plans on what that lock found (a
                // stream created meanwhile fails its insert and the grant runs again), so a wait for
                // another writer comes before the grant's recorded_at.
                try await TransactionDocuments.withDocuments(transaction, prefetch: touched, beforeAppendingTo: [stream]) { documents in
                    let results = try await transaction.append([StreamAppend(stream: stream, events: [event])])
                    guard let appended = results.first?.events.first else { return }
                    let projectable = ProjectableEvent(
                        eventID: appended.eventID.lowercaseString, streamID: stream, position: appended.position,
                        recordedAt: Self.recordedAt(appended, fallback: now), body: body
                    )
                    try await projector.apply(projectable, to: documents)
                }
            }
        }
    }
}
