import AppStoreTesting
import EventStore
import EventStoreTesting
import Foundation
import Ledger
import Testing

/// A write that creates a stream another writer is creating waits for it before its `recorded_at`
/// is taken. A new stream has no row to lock, so the second writer used to stamp, then wait on the
/// first one's insert; when the first rolled back (a deadlock's victim, after `deadlock_timeout`),
/// the second committed with a stamp that old, and `as_of` answers for moments already past changed
/// (multi-instance walkthrough: up to 2 s). Now both take an advisory lock on the stream's name with
/// the heads.
@Suite("A new stream's creator waits before its recorded_at")
struct NewStreamStampTests {
    typealias H = LedgerHarness

    /// `path` is how bob's stream is first written: a client submission (an ingest batch) or an
    /// operator's grant.
    @Test(.enabled(if: TestDatabases.dialects.contains(.postgres)), arguments: ["submission", "grant"])
    func aWriterCreatingAStreamAnotherIsCreatingIsStampedAfterTheWait(path: String) async throws {
        // Names of this case's own: advisory locks are the database's, shared by the tests running
        // at once in other schemas.
        let bob = "bob-new-\(path)", bobsStream = "user-bob-new-\(path)"
        try await H.run(dialect: .postgres, policy: .transfer) { h in
            let raw = try #require(h.fixture.rawPostgres)
            try await raw.withConnection { holder in
                let holderPID = try await LockWaiter.holder(holder, in: h.fixture)
                // What another writer creating bob's stream holds: the lock on the stream's name
                // (seed 1 of `lockHeadsAndDocuments`) and the row it inserted, not yet committed.
                _ = try await holder.query("SELECT pg_advisory_xact_lock(hashtextextended(\(bobsStream), 1))", logger: TestDatabases.logger)
                _ = try await holder.query(
                    "INSERT INTO streams (stream_id, version, head_hash) VALUES (\(bobsStream), 1, '\\x00'::bytea)", logger: TestDatabases.logger
                )
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        if path == "submission" {
                            _ = try await h.submit(user: bob, H.transaction("1000", purchased: 0, expires: 30), at: 1)
                        } else {
                            h.clock.set(Day.date(1))
                            _ = try await h.ledger.grant(
                                userId: bob, entitlement: "pro", expiresAt: Day.date(90), reason: "support", context: .init(source: "test")
                            )
                        }
                    }
                    let blocked = try await LockWaiter.releasing(holder) {
                        try await LockWaiter.waitForWaiter(on: holderPID, raw: raw)
                    }
                    // The wait lasts from day 1 to day 2 of the store's clock; then the other writer
                    // rolls back, as a deadlock's victim does.
                    h.clock.set(Day.date(2))
                    _ = try await holder.query("ROLLBACK", logger: TestDatabases.logger)
                    try await group.waitForAll()
                    try #require(blocked, "the write never waited for the other writer creating bob's stream")
                }
            }
            let log = try await readLog(h.store, atLeast: path == "submission" ? 2 : 1).events
            let bobs = log.filter { $0.streamID == bobsStream }
            #expect(!bobs.isEmpty)
            for event in log {
                #expect(event.recordedAt == Day.date(2), "\(event.type) on \(event.streamID) at \(event.recordedAt)")
            }
        }
    }

    /// The stream a write found absent can exist by the time its links are appended: another writer
    /// created it while this one waited for its name, and a third holds it locked. A transfer's link
    /// and unlink (which has a key) used to lock their streams again, after the stamp, and wait there
    /// (multi-instance probe: 1 to 2 s, deadlocks' timeouts); now the append only looks the key up,
    /// the stream's insert fails, and the write runs again, waiting for the lock before its new stamp.
    /// A grant's append guessed the head and waited on the row the same way.
    @Test(.enabled(if: TestDatabases.dialects.contains(.postgres)), arguments: ["submission", "grant"])
    func aStreamCreatedWhileTheWriteWaitedForItsNameIsNotLockedAfterTheStamp(path: String) async throws {
        // Names of this case's own: advisory locks are the database's, shared by the tests running
        // at once in other schemas.
        let alice = "alice-moved-\(path)", bob = "bob-moved-\(path)", bobsStream = "user-bob-moved-\(path)"
        try await H.run(dialect: .postgres, policy: .transfer) { h in
            try await h.submit(user: alice, H.transaction("1000", purchased: 0, expires: 30), at: 0)
            let raw = try #require(h.fixture.rawPostgres)
            try await raw.withConnection { holder in
                let holderPID = try await LockWaiter.holder(holder, in: h.fixture, begin: false)
                // The name's lock for the session, so it can be let go without ending a transaction.
                _ = try await holder.query("SELECT pg_advisory_lock(hashtextextended(\(bobsStream), 1))", logger: TestDatabases.logger)
                try await withThrowingTaskGroup(of: Void.self) { group in
                    h.clock.set(Day.date(1))
                    group.addTask {
                        if path == "submission" {
                            _ = try await h.submit(user: bob, H.transaction("1001", original: "1000", purchased: 30, expires: 60), at: 1)
                        } else {
                            _ = try await h.ledger.grant(
                                userId: bob, entitlement: "pro", expiresAt: Day.date(90), reason: "support", context: .init(source: "test")
                            )
                        }
                    }
                    let (waitedForName, waitedForStream) = try await LockWaiter.releasing(holder) {
                        let waitedForName = try await LockWaiter.waitForWaiter(on: holderPID, raw: raw)
                        // Another writer creates bob's stream meanwhile, and a third locks it; then the
                        // name is free and the write goes on, on the day-1 clock.
                        _ = try await holder.query(
                            "INSERT INTO streams (stream_id, version, head_hash) VALUES (\(bobsStream), 1, '\\x00'::bytea)", logger: TestDatabases.logger
                        )
                        _ = try await holder.query("BEGIN", logger: TestDatabases.logger)
                        _ = try await holder.query("SELECT 1 FROM streams WHERE stream_id = \(bobsStream) FOR UPDATE", logger: TestDatabases.logger)
                        _ = try await holder.query("SELECT pg_advisory_unlock(hashtextextended(\(bobsStream), 1))", logger: TestDatabases.logger)
                        return (waitedForName, try await LockWaiter.waitForWaiter(on: holderPID, raw: raw))
                    }
                    h.clock.set(Day.date(2))
                    _ = try await holder.query("ROLLBACK", logger: TestDatabases.logger)
                    try await group.waitForAll()
                    try #require(waitedForName, "the write never waited for bob's stream's name")
                    try #require(waitedForStream, "the write never waited for bob's stream")
                }
            }
            let log = try await readLog(h.store, atLeast: path == "submission" ? 5 : 3).events.filter { $0.recordedAt > Day.date(0) }
            if path == "submission" {
                #expect(log.contains { $0.streamID == bobsStream && $0.type == "user.linked" })
                #expect(log.contains { $0.streamID == "user-\(alice)" && $0.type == "user.unlinked" })
            } else {
                #expect(log.map(\.streamID) == [bobsStream])
            }
            for event in log {
                #expect(event.recordedAt == Day.date(2), "\(event.type) on \(event.streamID) at \(event.recordedAt)")
            }
        }
    }
}
