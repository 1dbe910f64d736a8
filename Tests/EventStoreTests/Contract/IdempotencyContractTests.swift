import EventStore
import EventStoreTesting
import Foundation
import Testing

@Suite("Event store contract: idempotency")
struct IdempotencyContractTests {
    @Test(arguments: TestDatabases.dialects)
    func aRepeatedDedupeKeyReturnsTheExistingEventFlaggedDuplicate(_ dialect: StorageDialect) async throws {
        try await withFreshStore(dialect) { (fixture: StoreFixture) async throws in
            let original = try await fixture.store.append(to: "s", event(dedupeKey: "apple-uuid-1"), expectedVersion: .noStream)
            #expect(!original.isDuplicate)
            // Same key, a new event id, a stale expected version and even another stream: still a no-op.
            let again = try await fixture.store.append(to: "other", event(dedupeKey: "apple-uuid-1"), expectedVersion: .exact(7))
            #expect(again.isDuplicate)
            #expect(again.eventID == original.eventID)
            #expect(again.position == original.position)
            #expect(again.streamID == "s")
            #expect(try await readLog(fixture.store, atLeast: 1).events.count == 1)
            #expect(try await fixture.store.streamVersion("other") == 0)
        }
    }

    @Test(arguments: TestDatabases.dialects)
    func aBatchMixingDuplicatesAndNewEventsWritesOnlyTheNewOnes(_ dialect: StorageDialect) async throws {
        try await withFreshStore(dialect) { (fixture: StoreFixture) async throws in
            _ = try await fixture.store.append(to: "s", event(dedupeKey: "k1"), expectedVersion: .any)
            let result = try await fixture.store.append(
                to: "s",
                [event(dedupeKey: "k1"), event(dedupeKey: "k2"), event(dedupeKey: "k2"), event()],
                expectedVersion: .exact(1)
            )
            #expect(result.events.map(\.isDuplicate) == [true, false, true, false])
            #expect(result.events[1].eventID == result.events[2].eventID)
            #expect(result.streamVersion == 3)
            #expect(try await fixture.store.readStream("s").map(\.dedupeKey) == ["k1", "k2", nil])
        }
    }

    @Test(arguments: TestDatabases.dialects)
    func concurrentDuplicateAppendsStoreExactlyOneEvent(_ dialect: StorageDialect) async throws {
        try await withFreshStore(dialect) { (fixture: StoreFixture) async throws in
            let results = try await withThrowingTaskGroup(of: AppendedEvent.self) { group in
                for task in 0..<16 {
                    // Half race on one stream, half on different streams: the key alone decides.
                    let stream = task.isMultiple(of: 2) ? "same" : "stream-\(task)"
                    group.addTask {
                        try await fixture.store.append(to: stream, event(dedupeKey: "notification-42"), expectedVersion: .any)
                    }
                }
                var results: [AppendedEvent] = []
                for try await result in group { results.append(result) }
                return results
            }
            #expect(results.filter { !$0.isDuplicate }.count == 1)
            #expect(Set(results.map(\.eventID)).count == 1)
            #expect(Set(results.map(\.position)).count == 1)
            let stored = try await readLog(fixture.store, atLeast: 1).events
            #expect(stored.count == 1)
            #expect(stored.first?.dedupeKey == "notification-42")
        }
    }
}
