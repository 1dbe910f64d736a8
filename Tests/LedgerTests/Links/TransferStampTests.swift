import AppStoreTesting
import AppStore
import EventStore
import EventStoreTesting
import Foundation
import Ledger
import Testing

/// A transfer takes the previous owner's stream and document before the write's `recorded_at` is
/// taken, so a wait for them (another transfer between the same users; PostgreSQL breaks a deadlock
/// only after `deadlock_timeout`) comes before the stamp and the write commits within moments of it:
/// stamped before the wait, it committed up to 2 s later, and `as_of` answers for moments already
/// past changed (multi-instance walkthrough). While it waits for them it holds none of the new
/// owner's locks that come after them in the one order every write takes (streams, then documents,
/// each sorted): locking the previous owner after the rest, two transfers between the same users each
/// held what the other needed next and deadlocked (59 to 95 times a run in the walkthrough's bursts).
@Suite("A transfer's locks come in order and before its recorded_at")
struct TransferStampTests {
    typealias H = LedgerHarness

    /// `held` is what of alice's the test holds: her stream's head, or her document.
    @Test(.enabled(if: TestDatabases.dialects.contains(.postgres)), arguments: [
        ("submission", "stream"), ("submission", "document"), ("link", "stream"), ("link", "document"),
        ("notification", "stream"), ("notification", "document"),
    ])
    func aTransferWaitingForThePreviousOwnerIsStampedAfterTheWait(path: String, held: String) async throws {
        // By default the transfer runs again to lock alice's with the rest; with no restarts left (a
        // write whose owners kept changing) it locks them after the rest, still before its stamp.
        for restarts in [3, 0] {
            try await transfer(path: path, held: held, restarts: restarts)
        }
    }

    private func transfer(path: String, held: String, restarts: Int) async throws {
        // Names of this case's own: advisory locks are the database's, shared by the tests running at
        // once in other schemas (another case holding "bob"'s name failed this one's check in CI).
        let tag = "\(path)-\(held)-\(restarts)"
        let alice = "alice-\(tag)", bob = "bob-\(tag)"
        try await H.run(dialect: .postgres, policy: .transfer, previousOwnerRestarts: restarts) { h in
            try await h.submit(user: alice, H.transaction("1000", purchased: 0, expires: 30), at: 0)
            let raw = try #require(h.fixture.rawPostgres)
            try await raw.withConnection { holder in
                let holderPID = try await LockWaiter.holder(holder, in: h.fixture)
                // What a transfer from alice must lock: her stream's head and her document.
                if held == "stream" {
                    _ = try await holder.query("SELECT 1 FROM streams WHERE stream_id = \("user-\(alice)") FOR UPDATE", logger: TestDatabases.logger)
                } else {
                    // A document's lock is the advisory lock `lock_and_read_documents` takes.
                    _ = try await holder.query("SELECT pg_advisory_xact_lock(hashtextextended(\("user_entitlements/\(alice)"), 0))", logger: TestDatabases.logger)
                }
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        switch path {
                        case "submission":
                            _ = try await h.submit(user: bob, H.transaction("1001", original: "1000", purchased: 30, expires: 60), at: 1)
                        case "notification":
                            // A token's claim: the renewal makes bob's token the chain's newest.
                            try await h.notify(.didRenew, transaction: H.transaction("1001", original: "1000", purchased: 30, expires: 60, token: bob), at: 1)
                        default:
                            h.clock.set(Day.date(1))
                            _ = try await h.ledger.link(userId: bob, originalTransactionId: "1000", source: "test", context: IngestContext(source: "test"))
                        }
                    }
                    let (blocked, bobsDocument, bobsStream) = try await LockWaiter.releasing(holder) {
                        let blocked = try await LockWaiter.waitForWaiter(on: holderPID, raw: raw)
                        // bob's stream is new, so its lock is the one on its name; his document sorts
                        // after alice's. A transfer the other way, holding alice's, would wait for them.
                        let bobsDocument = try await LockWaiter.tryAdvisoryLock(holder, key: "user_entitlements/\(bob)", seed: 0)
                        let bobsStream: Bool? = held == "stream" ? try await LockWaiter.tryAdvisoryLock(holder, key: "user-\(bob)", seed: 1) : nil
                        // The wait lasts from day 1 to day 2 of the store's clock.
                        h.clock.set(Day.date(2))
                        _ = try await holder.query("COMMIT", logger: TestDatabases.logger)
                        return (blocked, bobsDocument, bobsStream)
                    }
                    try await group.waitForAll()
                    try #require(blocked, "the transfer never waited for alice's locks")
                    if restarts > 0 {
                        #expect(bobsDocument, "the transfer held bob's document while it waited for alice's \(held)")
                        if let bobsStream {
                            #expect(bobsStream, "the transfer held bob's stream while it waited for alice's stream")
                        }
                    }
                }
            }
            let log = try await readLog(h.store, atLeast: 4).events
            let link = try #require(log.last { $0.type == "user.linked" && $0.streamID == "user-\(bob)" })
            let unlink = try #require(log.first { $0.type == "user.unlinked" && $0.streamID == "user-\(alice)" })
            #expect(link.recordedAt == Day.date(2), "restarts \(restarts): \(link.recordedAt)")
            #expect(unlink.recordedAt == Day.date(2), "restarts \(restarts): \(unlink.recordedAt)")
            if path != "link" {
                let fact = try #require(log.last { $0.type.hasPrefix("apple.") && $0.dedupeKey != log.first?.dedupeKey })
                #expect(fact.recordedAt == Day.date(2), "restarts \(restarts): \(fact.recordedAt)")
            }
        }
    }
}
