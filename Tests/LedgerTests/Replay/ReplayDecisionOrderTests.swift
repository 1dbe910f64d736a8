import AppStore
import AppStoreTesting
import EventStore
import EventStoreTesting
import Foundation
import Ledger
import PostgresNIO
import Testing

/// Live ingestion decides a chain's owner under locks; a replay must apply those decisions in the
/// order they were made. On PostgreSQL the global log's order, `(tx_id, position)`, can differ: a
/// writer gets its transaction id when it locks its first row, may then wait for another writer's
/// locks, and decide after it, while still sorting before it.
@Suite("Replay applies decisions in the order they were made")
struct ReplayDecisionOrderTests {
    typealias H = LedgerHarness

    /// B, a submission by u2 for chain 1000, locks the chain's stream (its transaction id) and waits
    /// for u2's stream, held by an operator's transaction. Meanwhile A, u1's receipt listing the
    /// chain, transfers it to u1 and commits. Then B transfers it on to u2. A replay in log order
    /// applied B's transfer before A's: the chain's owner became u1, and both users listed it.
    ///
    /// B runs with no restarts, as a write whose owners kept changing does (or an older build's): it
    /// locks the previous owner it finds after the rest. With a restart, B would run again with a new
    /// transaction id once it found u1 there, and the log's order would match the decisions'.
    @Test(.enabled(if: TestDatabases.dialects.contains(.postgres)))
    func aTransferDecidedAfterAnotherIsReplayedAfterItThoughItsTransactionIsOlder() async throws {
        try await H.run(dialect: .postgres, previousOwnerRestarts: 0) { h in
            try await h.submit(user: "u0", H.transaction("1000", original: "1000", purchased: 0, expires: 30), at: 1)
            try await h.submit(user: "u2", H.transaction("5000", original: "5000", purchased: 0, expires: 30), at: 1)
            LegacyInputTests.answer(h, "u1-receipt", day: 3, entries: [LegacyInputTests.entry("1000", original: "1000", purchased: 0, expires: 30)], pending: nil)
            let raw = try #require(h.fixture.rawPostgres)
            let receiptDone = AsyncStream<Void>.makeStream()

            try await raw.withConnection { holder in
                let holderPID = try await LockWaiter.holder(holder, in: h.fixture)
                _ = try await holder.query("SELECT 1 FROM streams WHERE stream_id = 'user-u2' FOR UPDATE", logger: TestDatabases.logger)

                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        _ = try await h.submit(user: "u2", H.transaction("1001", original: "1000", purchased: 30, expires: 60), at: 3)
                    }
                    let blocked = try await LockWaiter.releasing(holder) { try await LockWaiter.waitForWaiter(on: holderPID, raw: raw) }
                    group.addTask {
                        try await LegacyInputTests.submit(h, "u1-receipt", user: "u1", at: 3)
                        receiptDone.continuation.yield()
                    }
                    let receiptFirst = blocked ? await Self.arrives(receiptDone.stream, within: .seconds(30)) : false
                    _ = try await holder.query("ROLLBACK", logger: TestDatabases.logger)
                    try await group.waitForAll()
                    try #require(blocked, "the submission never waited for the holder's lock")
                    try #require(receiptFirst, "the receipt waited for the submission: the interleaving was not reached")
                }
            }

            // Live: u1 took the chain, then u2 did.
            let now = Day.date(3)
            #expect(try await h.ledger.entitlements(userId: "u2", at: now).subscriptions.map(\.originalTransactionId).contains("1000"))
            #expect(!(try await h.ledger.entitlements(userId: "u1", at: now).subscriptions.map(\.originalTransactionId).contains("1000")))
            // The log's order puts B's fact before A's events although A inserted first: the case this
            // test is about. (Read through a fold's snapshot: other suites' open transactions do not
            // hold it back as they hold back `readAll`.)
            let log = try await h.store.readAllForFolding(in: try await h.store.foldingSnapshot(), after: 0, limit: 100)
            let renewal = try #require(log.last { $0.streamID == "subscription-1000" })
            let receipt = try #require(log.first { $0.type == "apple.receipt.validated" })
            #expect(renewal.cursor < receipt.cursor && renewal.position > receipt.position)

            let check = try await LedgerReplayer(store: h.store).check()
            #expect(check.differences.isEmpty, "\(check.differences)")
            _ = try await LedgerReplayer(store: h.store).rebuild()
            #expect(try await h.ledger.entitlements(userId: "u2", at: now).subscriptions.map(\.originalTransactionId).contains("1000"))
            #expect(!(try await h.ledger.entitlements(userId: "u1", at: now).subscriptions.map(\.originalTransactionId).contains("1000")))
        }
    }

    /// Whether `stream` yields within `limit`.
    private static func arrives(_ stream: AsyncStream<Void>, within limit: Duration) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                for await _ in stream { return true }
                return false
            }
            group.addTask {
                try? await Task.sleep(for: limit)
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }
}
