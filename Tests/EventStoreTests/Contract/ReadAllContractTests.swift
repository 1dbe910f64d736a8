import EventStore
import EventStoreTesting
import Foundation
import Testing

@Suite("Event store contract: the global log")
struct ReadAllContractTests {
    @Test(arguments: TestDatabases.dialects)
    func readAllPagesThroughEveryEventOnceInOrder(_ dialect: StorageDialect) async throws {
        try await withFreshStore(dialect) { (fixture: StoreFixture) async throws in
            var appended: [UUID] = []
            for index in 0..<25 {
                let next = event("e", ["i": index])
                appended.append(next.eventID)
                _ = try await fixture.store.append(to: "stream-\(index % 4)", next, expectedVersion: .any)
            }
            let (seen, cursor) = try await Self.page(until: appended.count, limit: 7) { cursor, limit in
                try await fixture.store.readAll(after: cursor, limit: limit)
            }
            #expect(seen.map(\.eventID) == appended)
            #expect(seen.map(\.cursor) == seen.map(\.cursor).sorted())
            #expect(try await fixture.store.readAll(after: cursor, limit: 7).events.isEmpty)
            // The text form round-trips, so HTTP clients can resume from it.
            #expect(EventCursor(cursor.description) == cursor)
        }
    }

    @Test(arguments: TestDatabases.dialects)
    func readAllOfSomeStreamsPagesThroughTheirEventsOnlyInOrder(_ dialect: StorageDialect) async throws {
        try await withFreshStore(dialect) { (fixture: StoreFixture) async throws in
            var wanted: [UUID] = []
            for index in 0..<25 {
                let next = event("e", ["i": index])
                if index % 4 != 2 { wanted.append(next.eventID) }
                _ = try await fixture.store.append(to: "stream-\(index % 4)", next, expectedVersion: .any)
            }
            let streams = ["stream-0", "stream-1", "stream-3", "no-such-stream"]
            let (seen, cursor) = try await Self.page(until: wanted.count, limit: 4) { cursor, limit in
                try await fixture.store.readAll(streams: streams, after: cursor, limit: limit)
            }
            #expect(seen.map(\.eventID) == wanted)
            #expect(seen.allSatisfy { $0.streamID != "stream-2" })
            #expect(try await fixture.store.readAll(streams: streams, after: cursor, limit: 4).events.isEmpty)
            #expect(try await fixture.store.readAll(streams: [], after: .start, limit: 4).events.isEmpty)
        }
    }

    @Test(arguments: TestDatabases.dialects)
    func anAppendRaisesTheChangeSignal(_ dialect: StorageDialect) async throws {
        try await withFreshStore(dialect) { (fixture: StoreFixture) async throws in
            // Else the relay's own first rise could pass for the append's.
            if dialect == .postgres { try await waitUntilListening(fixture.store) }
            let before = fixture.store.changes.generation
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    await fixture.store.changes.wait(after: before, timeout: .seconds(30))
                }
                group.addTask {
                    _ = try await fixture.store.append(to: "s", event(), expectedVersion: .any)
                }
                try await group.waitForAll()
            }
            #expect(fixture.store.changes.generation > before)
        }
    }

    /// Pages with `read` from the start until `count` events came (or 30 s passed), checking each page
    /// keeps to `limit` and ends at its last event's cursor; returns the events and the last cursor.
    private static func page(
        until count: Int, limit: Int, _ read: (EventCursor, Int) async throws -> EventPage
    ) async throws -> (events: [RecordedEvent], cursor: EventCursor) {
        var cursor = EventCursor.start
        var seen: [RecordedEvent] = []
        let deadline = ContinuousClock.now + .seconds(30)
        while seen.count < count && ContinuousClock.now < deadline {
            let page = try await read(cursor, limit)
            #expect(page.events.count <= limit)
            if page.events.isEmpty {
                // PostgreSQL may hold events back while another test's transaction is open.
                #expect(page.next == cursor)
                try await Task.sleep(for: .milliseconds(10))
                continue
            }
            #expect(page.next == page.events.last?.cursor)
            seen += page.events
            cursor = page.next
        }
        return (seen, cursor)
    }
}
