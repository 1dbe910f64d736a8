import EventStore
import EventStoreTesting
import Foundation
import Testing

/// PostgreSQL assigns positions at insert but makes them visible at commit, so a naive reader that
/// resumes after the highest position it saw skips a slow transaction's event. These tests hold a
/// transaction open while later appends commit.
@Suite("PostgreSQL: late commits")
struct PostgresLateCommitTests {
    @Test(.enabled(if: TestDatabases.dialects.contains(.postgres)))
    func aReaderSeesEveryEventExactlyOnceWhenAnEarlierTransactionCommitsLate() async throws {
        try await withFreshStore(.postgres) { (fixture: StoreFixture) async throws in
            let store = fixture.store
            _ = try await store.append(to: "before", event(), expectedVersion: .any)
            let someStreams = ["slow", "fast-1", "fast-3"]
            // The slow writer: its event is inserted, then its transaction waits.
            let (first, firstOfSome, fastIDs) = try await whileAnAppendIsOpen(store, to: "slow", event("slow")) {
                var fastIDs: [UUID] = []
                for index in 0..<5 {
                    let fast = event("fast", ["i": index])
                    fastIDs.append(fast.eventID)
                    _ = try await store.append(to: "fast-\(index)", fast, expectedVersion: .any)
                }

                // While the slow transaction is open, the later, committed events are held back.
                let first = try await store.readAll(after: .start, limit: 100)
                #expect(first.events.allSatisfy { $0.type == "test.happened" })
                // Also when only some streams are read (a user's events).
                let firstOfSome = try await store.readAll(streams: someStreams, after: .start, limit: 100)
                #expect(firstOfSome.events.isEmpty)
                return (first, firstOfSome, fastIDs)
            }

            let all = try await readLog(store, atLeast: 7).events
            #expect(all.count == 7)
            #expect(Set(all.map(\.eventID)).count == all.count)
            #expect(all.map(\.type) == ["test.happened", "slow", "fast", "fast", "fast", "fast", "fast"])
            #expect(Set(all.suffix(5).map(\.eventID)) == Set(fastIDs))
            // The slow event has a lower position than the fast ones but committed after them; a reader
            // resuming after the highest position it had seen would have skipped it.
            let resumed = try await readLog(store, after: first.next, atLeast: 7 - first.events.count).events
            #expect(resumed.map(\.eventID) == Array(all.dropFirst(first.events.count)).map(\.eventID))
            // Other tests' open transactions may hold events back a moment longer: read until all three came.
            var some: [RecordedEvent] = []
            var cursor = firstOfSome.next
            let deadline = ContinuousClock.now + .seconds(30)
            while some.count < 3 && ContinuousClock.now < deadline {
                let page = try await store.readAll(streams: someStreams, after: cursor, limit: 100)
                if page.events.isEmpty { try await Task.sleep(for: .milliseconds(10)) }
                some += page.events
                cursor = page.next
            }
            #expect(some.map(\.streamID) == ["slow", "fast-1", "fast-3"])
        }
    }

    @Test(.enabled(if: TestDatabases.dialects.contains(.postgres)))
    func aConcurrentFollowerNeverSkipsOrRepeatsUnderInterleavedSlowCommits() async throws {
        try await withFreshStore(.postgres) { (fixture: StoreFixture) async throws in
            let store = fixture.store
            let total = 60
            try await withThrowingTaskGroup(of: Void.self) { group in
                for writer in 0..<6 {
                    group.addTask {
                        for index in 0..<(total / 6) {
                            try await store.transaction { transaction in
                                _ = try await transaction.append(to: "w\(writer)", [event("e", ["i": index])], expectedVersion: .any)
                                // Random hold times make commit order differ from position order.
                                try await Task.sleep(for: .milliseconds(Int.random(in: 0...15)))
                            }
                        }
                    }
                }
                // Follow the log while writers run, as a catch-up projector would.
                var cursor = EventCursor.start
                var seen: [UUID] = []
                let deadline = ContinuousClock.now + .seconds(60)
                while seen.count < total && ContinuousClock.now < deadline {
                    let page = try await store.readAll(after: cursor, limit: 7)
                    seen += page.events.map(\.eventID)
                    cursor = page.next
                    if page.events.isEmpty { try await Task.sleep(for: .milliseconds(5)) }
                }
                try await group.waitForAll()
                let tail = try await store.readAll(after: cursor, limit: 1000)
                seen += tail.events.map(\.eventID)
                #expect(seen.count == total)
                #expect(Set(seen).count == total)
            }
        }
    }
}
