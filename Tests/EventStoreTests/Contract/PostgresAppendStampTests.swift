import EventStore
import EventStoreTesting
import Foundation
import Synchronization
import Testing

/// An append that loses a race to another writer runs again with a `recorded_at` of its own. The
/// stamp taken before the lost attempt predates the wait for that writer, and an event committed
/// with it would change `as_of` answers for moments already past.
@Suite("PostgreSQL: an append that runs again is stamped again")
struct PostgresAppendStampTests {
    @Test(.enabled(if: TestDatabases.dialects.contains(.postgres)))
    func anAppendThatLostARaceIsStampedWhenItRunsAgain() async throws {
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let clock = Mutex(start)
        try await withFreshStore(.postgres, now: { clock.withLock { $0 } }) { (fixture: StoreFixture) async throws in
            let store = fixture.store
            // The store now remembers the stream's head at version 1.
            _ = try await store.append(to: "contested", event("first"), expectedVersion: .any)
            let raw = try #require(fixture.rawPostgres)
            try await raw.withConnection { holder in
                let holderPID = try await LockWaiter.holder(holder, in: fixture)
                // Another writer holds the head, and will move it.
                _ = try await holder.query("SELECT 1 FROM streams WHERE stream_id = 'contested' FOR UPDATE", logger: TestDatabases.logger)
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        _ = try await store.append(to: "contested", event("second"), expectedVersion: .any)
                    }
                    let blocked = try await LockWaiter.releasing(holder) {
                        let blocked = try await LockWaiter.waitForWaiter(on: holderPID, raw: raw)
                        clock.withLock { $0 = start.addingTimeInterval(60) }
                        _ = try await holder.query("UPDATE streams SET version = 2 WHERE stream_id = 'contested'", logger: TestDatabases.logger)
                        _ = try await holder.query("COMMIT", logger: TestDatabases.logger)
                        return blocked
                    }
                    try await group.waitForAll()
                    try #require(blocked, "the append never waited for the other writer")
                }
            }
            let second = try #require(try await readLog(store, atLeast: 2).events.first { $0.type == "second" })
            #expect(second.streamVersion == 3)
            #expect(second.recordedAt == start.addingTimeInterval(60), "\(second.recordedAt)")
        }
    }
}
