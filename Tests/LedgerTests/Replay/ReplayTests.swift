import AppStore
import AppStoreTesting
import EventStore
import EventStoreTesting
import Foundation
@testable import Ledger
import Synchronization
import Testing

@Suite("Replay rebuilds read models identical to the live ones")
struct ReplayTests {
    typealias H = LedgerHarness

    /// Buys, renewals, a refund and its reversal, links with a transfer, an appAccountToken claim,
    /// a grant and a revoke, and a duplicate: every kind of event the projector folds.
    static func mixedWorkload(_ h: H) async throws {
        try await h.submit(user: "alice", H.transaction("1000", purchased: 0, expires: 30), renewal: H.renewal(signed: 0), at: 0)
        try await h.notify(.didRenew, transaction: H.transaction("1001", purchased: 30, expires: 60), renewal: H.renewal(signed: 30), at: 30)
        try await h.notify(.refund, transaction: H.transaction("1001", purchased: 30, expires: 60, signed: 35, revoked: 35), at: 35)
        try await h.notify(.refundReversed, transaction: H.transaction("1001", purchased: 30, expires: 60, signed: 36), at: 36)
        try await h.submit(user: "bob", H.transaction("1000", purchased: 0, expires: 30), at: 40)
        try await h.notify(.subscribed, .initialBuy, transaction: H.transaction("3000", original: "3000", product: "basic.monthly", purchased: 41, expires: 71, token: "0f0e0d0c-0b0a-4908-8706-050403020100"), at: 41)
        h.clock.set(Day.date(42))
        let grant = try await h.ledger.grant(userId: "carol", entitlement: "pro", expiresAt: Day.date(60), reason: "support", context: .init(source: "test"))
        try await h.ledger.revokeGrant(userId: "carol", grantId: grant.grantId, reason: "mistake", context: .init(source: "test"))
        let jws = try h.pki.signNotification(type: .didRenew, bundleId: H.bundleId, environment: .sandbox,
                                             transaction: H.transaction("1002", purchased: 60, expires: 90), signedDate: Day.apple(60))
        let body = try TestPKI.notificationBody(signedPayload: jws)
        _ = try await h.ledger.ingestNotificationV2(body: body, context: .init(source: "test"))
        _ = try await h.ledger.ingestNotificationV2(body: body, context: .init(source: "test"))
    }

    @Test(arguments: TestDatabases.dialects)
    func checkFindsNoDifferenceAfterAMixedWorkloadAndRebuildIsIdentical(_ dialect: StorageDialect) async throws {
        try await H.run(dialect: dialect) { h in
            try await Self.mixedWorkload(h)
            // 13 events: the duplicate notification adds none.
            let events = try await readLog(h.store, atLeast: 13).events.count
            #expect(events == 13)
            let replayer = LedgerReplayer(store: h.store, pageSize: 3)
            let check = try await replayer.check()
            #expect(check.events == events)
            #expect(check.differences.isEmpty, "\(check.differences)")
            #expect(check.documents == (try await h.store.projectionDocuments()).count)

            let before = try await h.ledger.entitlements(userId: "bob", at: Day.date(61))
            let rebuild = try await replayer.rebuild()
            #expect(rebuild.documents == check.documents)
            #expect(try await h.ledger.entitlements(userId: "bob", at: Day.date(61)) == before)
            #expect(try await replayer.check().differences.isEmpty)
            // A second rebuild works too (the swap leaves names ready for the next one).
            _ = try await replayer.rebuild()
            #expect(try await replayer.check().differences.isEmpty)
        }
    }

    /// Progress covers the whole job: the fold's steps up to every event, then the write (rebuild) or
    /// the comparison (check) with its document count, which on a large store is a wait of its own.
    @Test(arguments: TestDatabases.dialects)
    func progressReportsTheFoldThenTheSwapOrTheComparison(_ dialect: StorageDialect) async throws {
        try await H.run(dialect: dialect) { h in
            try await Self.mixedWorkload(h)
            let replayer = LedgerReplayer(store: h.store, pageSize: 3)
            for rebuilding in [true, false] {
                let steps = Mutex<[LedgerReplayer.Progress]>([])
                let record: @Sendable (LedgerReplayer.Progress) -> Void = { step in steps.withLock { $0.append(step) } }
                let report = rebuilding ? try await replayer.rebuild(progress: record) : try await replayer.check(progress: record)
                let seen = steps.withLock { $0 }
                let folding = seen.filter { $0.phase == .folding }
                // 13 events in pages of 3: five pages folded, each reported.
                #expect(folding.map(\.events) == [3, 6, 9, 12, 13])
                #expect(folding.allSatisfy { $0.totalEvents == 13 })
                let last = try #require(seen.last)
                #expect(seen.count == folding.count + 1)
                #expect(last.events == report.events)
                #expect(report.documents > 0)
                #expect(last.phase == (rebuilding ? .swapping(documents: report.documents) : .comparing(documents: report.documents)))
            }
        }
    }

    /// A replay folds the history committed when it starts, so an older transaction still open on the
    /// server does not hold it back (the feed's readers wait for it; a fold has no cursor to protect).
    /// An event with a transaction id the server has not reached (history restored from another
    /// cluster) is counted but never visible: the replay changes nothing and says why.
    @Test(.enabled(if: TestDatabases.dialects.contains(.postgres)))
    func aReplayFoldsEveryCommittedEventAndChangesNothingWhenSomeAreHidden() async throws {
        try await H.run(dialect: .postgres) { h in
            try await Self.mixedWorkload(h)
            let raw = try #require(h.fixture.rawPostgres)
            try await raw.withConnection { connection in
                _ = try await connection.query("BEGIN", logger: TestDatabases.logger)
                _ = try await connection.query("SELECT pg_current_xact_id()", logger: TestDatabases.logger)
                // Committed after the open transaction began: hidden from the feed's readers, not from a fold.
                try await h.submit(user: "dave", H.transaction("4000", original: "4000", purchased: 50, expires: 80), at: 50)
                let total = try await h.store.eventCount()
                #expect(try await LedgerReplayer(store: h.store).check().events == total)
                let rebuilt = try await LedgerReplayer(store: h.store).rebuild()
                #expect(rebuilt.events == total)
                #expect(try await LedgerReplayer(store: h.store).check().differences.isEmpty)
                _ = try await connection.query("ROLLBACK", logger: TestDatabases.logger)
            }

            try await h.fixture.rawExecute("""
                INSERT INTO events
                    (event_id, stream_id, stream_version, type, schema_version, data, metadata, recorded_at, hash, tx_id)
                VALUES ('6d1f1a58-7a39-4c3b-9d8e-2f6c1b0e9a11', 'restored', 1, 'test', 1, '{}', '{}', now(), '\\x00',
                        ((pg_current_xact_id()::text)::numeric + 1000000)::text::xid8)
                """)
            let stored = try await h.store.eventCount()
            try await Self.alterBobsReadModel(h)
            let before = try await h.store.projectionDocuments()
            let replayer = LedgerReplayer(store: h.store)
            await #expect {
                _ = try await replayer.rebuild()
            } throws: { error in
                guard let incomplete = error as? LedgerReplayer.IncompleteFold else { return false }
                return incomplete.folded == stored - 1 && incomplete.stored == stored
            }
            await #expect(throws: LedgerReplayer.IncompleteFold.self) { _ = try await replayer.check() }
            #expect(try await h.store.projectionDocuments() == before)
        }
    }

    /// Whether the `projections_rebuild` table exists (in the test's schema on PostgreSQL): a rebuild
    /// that changed nothing must not leave it filled.
    static func rebuildTable(in h: H) async throws -> Bool {
        try await h.fixture.tableExists("projections_rebuild")
    }

    /// Alters bob's live read model (it loses his chain), so that a swap of any fold's documents would
    /// show: a refused swap must leave the altered row as it is. Without it a refused swap's check
    /// compared documents a wrongful swap would have written alike.
    static func alterBobsReadModel(_ h: H) async throws {
        try await h.fixture.rawExecute("UPDATE projections SET data = '{\"state\":{\"userId\":\"bob\",\"chains\":{},\"grants\":{}},\"position\":0}' WHERE model = 'user_entitlements' AND key = 'bob'")
        let bob = try #require(try await h.store.projectionDocuments().first { $0.model == "user_entitlements" && $0.key == "bob" })
        try #require(String(decoding: bob.data, as: UTF8.self).contains(#""chains":{}"#), "bob's read model was not altered")
    }

    /// A swap that cannot get the read models' lock, because a long transaction reads them, gives up
    /// after its three short waits instead of holding every request behind it for as long as that
    /// transaction lasts. Nothing changes and no filled table is left; once the transaction ends
    /// the same swap goes through.
    @Test(.enabled(if: TestDatabases.dialects.contains(.postgres)), .timeLimit(.minutes(2)))
    func aSwapThatCannotGetTheReadModelsLockGivesUpAndChangesNothing() async throws {
        try await H.run(dialect: .postgres) { h in
            try await Self.mixedWorkload(h)
            let raw = try #require(h.fixture.rawPostgres)
            let replayer = LedgerReplayer(store: h.store, pageSize: 3)
            let (documents, folded) = try await replayer.fold()
            try await Self.alterBobsReadModel(h)
            let live = try await h.store.projectionDocuments()
            let (held, holding) = AsyncStream<Void>.makeStream()
            let (ended, end) = AsyncStream<Void>.makeStream()
            try await withThrowingTaskGroup { group in
                group.addTask {
                    // Ends the wait below even when this task fails before it holds the lock.
                    defer { holding.finish() }
                    try await raw.withConnection { connection in
                        _ = try await connection.query("SELECT set_config('search_path', \(h.fixture.location), false)", logger: TestDatabases.logger)
                        _ = try await connection.query("BEGIN", logger: TestDatabases.logger)
                        _ = try await connection.query("SELECT count(*) FROM projections", logger: TestDatabases.logger).collect()
                        holding.yield()
                        for await _ in ended {}
                        _ = try await connection.query("ROLLBACK", logger: TestDatabases.logger)
                    }
                }
                for await _ in held { break }
                let started = ContinuousClock.now
                await #expect {
                    _ = try await replayer.swapIn(documents, foldedEvents: folded)
                } throws: { error in
                    guard let blocked = error as? EventStoreError, blocked.code == .rebuildBlocked else { return false }
                    return blocked.message.contains("3 waits of 1.0 seconds")
                }
                // Three waits of 1 s and two pauses of 0.5 s: a wait cut short would give up sooner.
                let waited = ContinuousClock.now - started
                #expect(waited >= .milliseconds(3500), "gave up after \(waited)")
                end.finish()
                try await group.waitForAll()
            }
            #expect(try await h.store.projectionDocuments() == live)
            #expect(try await Self.rebuildTable(in: h) == false, "the refused rebuild's table is still there")
            _ = try await replayer.swapIn(documents, foldedEvents: folded)
            #expect(try await h.store.projectionDocuments() != live, "the swap left bob's altered row: a refused one would not have shown")
            #expect(try await replayer.check().differences.isEmpty)
        }
    }

    /// A rebuild whose fold missed events appended after it read the history (a replay while `serve`
    /// ingests) would swap in read models without their facts: it changes nothing and says so, and
    /// leaves no filled table behind. A check in the same spot counts the events it did not fold, so
    /// the command can say its differences may be theirs.
    @Test(arguments: TestDatabases.dialects)
    func eventsAppendedAfterTheFoldStopTheSwapAndAreCountedByTheCheck(_ dialect: StorageDialect) async throws {
        try await H.run(dialect: dialect) { h in
            try await Self.mixedWorkload(h)
            let replayer = LedgerReplayer(store: h.store, pageSize: 3)
            let (documents, folded) = try await replayer.fold()
            let stored = try await h.store.eventCount()
            #expect(folded == stored)
            try await h.submit(user: "erin", H.transaction("5000", original: "5000", purchased: 70, expires: 100), at: 70)
            let appended = try await h.store.eventCount() - stored
            #expect(appended > 0)
            let live = try await h.store.projectionDocuments()
            await #expect {
                _ = try await replayer.swapIn(documents, foldedEvents: folded)
            } throws: { error in
                guard let refused = error as? EventStoreError, refused.code == .rebuildOutdated else { return false }
                return refused.message.hasPrefix("\(appended) event(s) were appended after the rebuild's fold")
            }
            #expect(try await h.store.projectionDocuments() == live)
            #expect(try await h.ledger.entitlements(userId: "erin", at: Day.date(71)).subscriptions.map(\.originalTransactionId) == ["5000"])
            #expect(try await Self.rebuildTable(in: h) == false, "the refused rebuild's table is still there")

            let check = try await replayer.compare(documents, foldedEvents: folded)
            #expect(check.appendedSinceFold == appended)
            #expect(!check.differences.isEmpty)
            // Folded again with nothing appended meanwhile, both agree and nothing is left to blame.
            let again = try await replayer.check()
            #expect(again.differences.isEmpty && again.appendedSinceFold == 0)
            #expect(try await replayer.rebuild().events == stored + appended)
            #expect(try await h.store.projectionDocuments() == live)
        }
    }

    /// Rebuilds while writes go on, grants among them (they append before they read their document,
    /// the order that deadlocked with a swap that also locked the events): every swap is made or
    /// refused (as outdated, or as blocked), nothing else fails, swaps are made between writes, and
    /// once the writes stop the read models match a rebuild, so no write was lost to a swap.
    @Test(arguments: TestDatabases.dialects)
    func rebuildsAlongsideWritesLoseNothing(_ dialect: StorageDialect) async throws {
        try await H.run(dialect: dialect) { h in
            try await Self.mixedWorkload(h)
            h.clock.set(Day.date(42))
            let replayer = LedgerReplayer(store: h.store, pageSize: 20)
            let written = Flag(), swapped = Tally()
            // Any failure but a refusal (a deadlock, say) is thrown out of the group.
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    defer { written.set() }
                    for index in 0..<30 {
                        _ = try await h.ledger.grant(userId: "g\(index % 3)", entitlement: "pro", expiresAt: Day.date(90), reason: "load", context: .init(source: "test"))
                        if index % 5 == 0 {
                            try await h.submit(user: "w\(index)", H.transaction("\(7000 + index)", original: "\(7000 + index)", purchased: 42, expires: 72), at: 42)
                        }
                        // Twice, a pause until a rebuild is swapped in between these writes and the
                        // next (without them every rebuild on SQLite was refused as outdated, so no
                        // swap ever met a write).
                        if index == 9 || index == 19 {
                            let seen = swapped.value
                            try #require(await swapped.waitPast(seen), "no rebuild was swapped in after write \(index)")
                        }
                    }
                }
                group.addTask {
                    // Rebuilds until the writes end, counting those swapped in.
                    while !written.isSet {
                        do {
                            _ = try await replayer.rebuild()
                            swapped.add()
                        } catch let error as EventStoreError where error.code == .rebuildOutdated || error.code == .rebuildBlocked {
                            // Refused, changing nothing: writes came after its fold, or (PostgreSQL)
                            // the read models' lock stayed taken through its waits.
                            continue
                        }
                    }
                }
                try await group.waitForAll()
            }
            let check = try await replayer.check()
            #expect(check.differences.isEmpty, "\(check.differences)")
            #expect(check.appendedSinceFold == 0)
            #expect(try await h.ledger.entitlements(userId: "g0", at: Day.date(43)).entitlements.map(\.id) == ["pro"])
        }
    }

    /// An event this build cannot read stops a replay, naming the event to look at rather than only
    /// the decoder's complaint; nothing is swapped in.
    @Test(arguments: TestDatabases.dialects)
    func anUnreadableEventIsNamedByPositionStreamAndType(_ dialect: StorageDialect) async throws {
        try await H.run(dialect: dialect) { h in
            try await Self.mixedWorkload(h)
            let appended = try await h.store.append(
                to: LedgerEventType.userStream("u9"), [NewEvent(type: LedgerEventType.userLinked, data: Data(#"{"userId":5}"#.utf8))]
            )
            let position = try #require(appended.events.first?.position)
            try await Self.alterBobsReadModel(h)
            let live = try await h.store.projectionDocuments()
            for rebuilding in [false, true] {
                await #expect {
                    _ = rebuilding ? try await LedgerReplayer(store: h.store).rebuild() : try await LedgerReplayer(store: h.store).check()
                } throws: { error in
                    error as? LedgerError == LedgerError(
                        .unreadableEvent,
                        "the event at position \(position) on stream user-u9 (\(LedgerEventType.userLinked)) cannot be read by this build: userId must be a string"
                    )
                }
            }
            #expect(try await h.store.projectionDocuments() == live)
        }
    }

    /// Facts kept on a stream other than their chain's (a V1 notification on its latest
    /// subscription's stream, a receipt on its submitter's) are noted in the chain's document, and a
    /// replay notes the same streams.
    @Test(arguments: TestDatabases.dialects)
    func chainsNoteTheOtherStreamsHoldingTheirFactsAndReplayNotesTheSame(_ dialect: StorageDialect) async throws {
        try await H.run(dialect: dialect) { h in
            h.clock.set(Day.date(5))
            _ = try await h.ledger.ingestNotificationV1(body: try LegacyInputTests.v1Body(.initialBuy, entries: [
                LegacyInputTests.entry("2000", purchased: 0, expires: 30),
                LegacyInputTests.entry("4000", original: "4000", purchased: 5, expires: 35),
            ]), context: .init(source: "test"))
            h.receipts.register(
                VerifyReceiptResponse(status: 0, environment: .sandbox, receipt: LegacyReceipt(bundleId: H.bundleId, requestDate: Day.apple(6)),
                                      latestReceiptInfo: [LegacyInputTests.entry("2000", purchased: 0, expires: 30)]),
                for: "daves-receipt"
            )
            h.clock.set(Day.date(6))
            _ = try await h.ledger.submitReceipt(userId: "dave", receiptData: "daves-receipt", context: .init(source: "test"))
            let chain = try #require(try await h.store.document(model: ReadModel.subscriptionState, key: "2000"))
            #expect(try ChainDocument.decode(from: chain).state.otherStreams == ["subscription-4000", "user-dave"])
            let own = try #require(try await h.store.document(model: ReadModel.subscriptionState, key: "4000"))
            #expect(try ChainDocument.decode(from: own).state.otherStreams.isEmpty)
            // The log is read behind the gate on running transactions, which other tests' may hold.
            _ = try await readLog(h.store, atLeast: try await h.store.eventCount())
            let replayer = LedgerReplayer(store: h.store, pageSize: 2)
            let check = try await replayer.check()
            #expect(check.differences.isEmpty, "\(check.differences)")
            _ = try await replayer.rebuild()
            #expect(try await h.store.document(model: ReadModel.subscriptionState, key: "2000") == chain)
        }
    }

    /// In production the store stamps an event with its own clock, a little after the ledger read
    /// its own: the inline projection must fold the stored time, as a replay does, or every linked
    /// user's document would differ after a rebuild.
    @Test(arguments: TestDatabases.dialects)
    func checkFindsNoDifferenceWhenTheStoreClockIsAheadOfTheLedgers(_ dialect: StorageDialect) async throws {
        try await H.run(dialect: dialect, storeClockLead: 0.3757) { h in
            try await Self.mixedWorkload(h)
            let events = try await readLog(h.store, atLeast: 13).events.count
            let check = try await LedgerReplayer(store: h.store, pageSize: 4).check()
            #expect(check.events == events)
            #expect(check.documents > 0)
            #expect(check.differences.isEmpty, "\(check.differences)")
        }
    }

    @Test(arguments: TestDatabases.dialects)
    func checkReportsAnAlteredOrMissingReadModelRowAndRebuildRepairsIt(_ dialect: StorageDialect) async throws {
        try await H.run(dialect: dialect) { h in
            try await Self.mixedWorkload(h)
            _ = try await readLog(h.store, atLeast: 13)
            try await h.fixture.rawExecute("UPDATE projections SET data = '{\"state\":{\"userId\":\"bob\",\"chains\":{},\"grants\":{}},\"position\":0}' WHERE model = 'user_entitlements' AND key = 'bob'")
            try await h.fixture.rawExecute("DELETE FROM projections WHERE model = 'chain_owner' AND key = '3000'")
            let replayer = LedgerReplayer(store: h.store)
            let check = try await replayer.check()
            #expect(check.differences.map(\.description) == [
                "chain_owner/3000: missing_in_live",
                // Where it differs: the tampered row lost bob's chain and its position.
                "user_entitlements/bob: changed at position, state.chains.1000",
            ])
            #expect(try await h.ledger.entitlements(userId: "bob", at: Day.date(45)).entitlements.isEmpty)
            _ = try await replayer.rebuild()
            #expect(try await replayer.check().differences.isEmpty)
            #expect(try await h.entitlement("pro", of: "bob", at: 45)?.active == true)
        }
    }
}
