import EventStore
import EventStoreTesting
import Foundation
import Testing

/// The behaviour every adapter must share: run once per dialect.
@Suite("Event store contract: appends")
struct AppendContractTests {
    static let fixedNow = Date(timeIntervalSince1970: 1_763_700_000.123456)

    @Test(arguments: TestDatabases.dialects)
    func appendedEventsReadBackWithVersionsPositionsAndChainedHashes(_ dialect: StorageDialect) async throws {
        try await withFreshStore(dialect, now: { Self.fixedNow }) { (fixture: StoreFixture) async throws in
            var first = event("a.happened", ["n": 1, "text": "caf\u{e9} / \"quoted\""])
            // Spacing and key order as a client sent them: kept exactly.
            first.data = Data(#"{ "text": "caf\u00e9 \/ x",  "n": 1.50 }"#.utf8)
            let second = event("b.happened", ["nested": ["z": 1, "a": [true, false]] as [String: any Sendable]])
            let result = try await fixture.store.append(to: "stream-1", [first, second], expectedVersion: .noStream)
            #expect(result.streamVersion == 2)
            #expect(result.events.map(\.streamVersion) == [1, 2])
            #expect(result.events.allSatisfy { !$0.isDuplicate })
            #expect(result.events[0].position < result.events[1].position)

            let events = try await fixture.store.readStream("stream-1")
            #expect(events.map(\.eventID) == [first.eventID, second.eventID])
            #expect(events.map(\.type) == ["a.happened", "b.happened"])
            #expect(events.map(\.position) == result.events.map(\.position))
            // Stored byte for byte, also in PostgreSQL (text, not jsonb).
            #expect(events[0].data == first.data)
            #expect(events[1].data == second.data)
            #expect(events[0].metadata == first.metadata)
            #expect(events.allSatisfy { $0.recordedAt == Timestamp.truncated(Self.fixedNow) })
            #expect(EventHasher.hash(previous: EventHasher.genesis, events[0]) == events[0].hash)
            #expect(EventHasher.hash(previous: events[0].hash, events[1]) == events[1].hash)
            #expect(try await fixture.store.streamVersion("stream-1") == 2)
            #expect(try await fixture.store.streamVersion("missing") == 0)
        }
    }

    @Test(arguments: TestDatabases.dialects)
    func readStreamStartsAtTheRequestedVersionAndHonoursLimit(_ dialect: StorageDialect) async throws {
        try await withFreshStore(dialect) { (fixture: StoreFixture) async throws in
            _ = try await fixture.store.append(to: "s", (1...5).map { event("e", ["i": $0]) }, expectedVersion: .any)
            let tail = try await fixture.store.readStream("s", from: 3, limit: nil)
            #expect(tail.map(\.streamVersion) == [3, 4, 5])
            let limited = try await fixture.store.readStream("s", from: 2, limit: 2)
            #expect(limited.map(\.streamVersion) == [2, 3])
            #expect(try await fixture.store.readStream("other").isEmpty)
        }
    }

    @Test(arguments: TestDatabases.dialects)
    func expectedVersionMismatchIsATypedConflictAndWritesNothing(_ dialect: StorageDialect) async throws {
        try await withFreshStore(dialect) { (fixture: StoreFixture) async throws in
            _ = try await fixture.store.append(to: "s", event(), expectedVersion: .noStream)
            await #expect {
                _ = try await fixture.store.append(to: "s", event(), expectedVersion: .noStream)
            } throws: { $0.storeCode == .versionConflict }
            do {
                _ = try await fixture.store.append(to: "s", [event(), event()], expectedVersion: .exact(5))
                Issue.record("append with a wrong expected version succeeded")
            } catch {
                #expect(error.storeCode == .versionConflict)
            }
            #expect(try await fixture.store.streamVersion("s") == 1)
            _ = try await fixture.store.append(to: "s", event(), expectedVersion: .exact(1))
            #expect(try await fixture.store.readStream("s").count == 2)
        }
    }

    @Test(arguments: TestDatabases.dialects)
    func aFailingProjectionRollsBackTheWholeAppend(_ dialect: StorageDialect) async throws {
        struct ProjectionFailed: Error {}
        try await withFreshStore(dialect) { (fixture: StoreFixture) async throws in
            await #expect(throws: ProjectionFailed.self) {
                try await fixture.store.transaction { transaction in
                    _ = try await transaction.append(to: "s", [event(), event(), event()], expectedVersion: .any)
                    try await transaction.putDocument(model: "view", key: "k", data: Data(#"{"x":1}"#.utf8))
                    throw ProjectionFailed()
                }
            }
            #expect(try await fixture.store.readStream("s").isEmpty)
            #expect(try await fixture.store.streamVersion("s") == 0)
            #expect(try await fixture.store.document(model: "view", key: "k") == nil)
            #expect(try await fixture.store.readAll(after: .start, limit: 10).events.isEmpty)
        }
    }

    @Test(arguments: TestDatabases.dialects)
    func projectionWritesCommitWithTheEvents(_ dialect: StorageDialect) async throws {
        try await withFreshStore(dialect) { (fixture: StoreFixture) async throws in
            let result = try await fixture.store.transaction { transaction in
                let result = try await transaction.append(to: "s", [event()], expectedVersion: .any)
                let previous = try await transaction.document(model: "count", key: "s")
                #expect(previous == nil)
                let position = result.events.first?.position ?? -1
                try await transaction.putDocument(model: "count", key: "s", data: Data(#"{"position":\#(position)}"#.utf8))
                return result
            }
            let document = try #require(try await fixture.store.document(model: "count", key: "s"))
            let decoded = try JSONSerialization.jsonObject(with: document) as? [String: Int]
            #expect(decoded?["position"] == Int(result.events[0].position))
        }
    }

    @Test(arguments: TestDatabases.dialects)
    func malformedEventsAreRejectedBeforeTouchingTheStore(_ dialect: StorageDialect) async throws {
        try await withFreshStore(dialect) { (fixture: StoreFixture) async throws in
            let notJSON = NewEvent(type: "t", data: Data("not json".utf8))
            let array = NewEvent(type: "t", data: Data("[1,2]".utf8))
            let emptyKey = NewEvent(type: "t", data: Data("{}".utf8), dedupeKey: "")
            for bad in [notJSON, array, emptyKey] {
                await expectStoreError(.invalidEvent, "appending a malformed event") {
                    _ = try await fixture.store.append(to: "s", [event(), bad], expectedVersion: .any)
                }
            }
            await #expect(throws: EventStoreError.self) {
                _ = try await fixture.store.append(to: "", [event()], expectedVersion: .any)
            }
            #expect(try await fixture.store.readAll(after: .start, limit: 10).events.isEmpty)
        }
    }
}
