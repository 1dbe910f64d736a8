import EventStore
import EventStoreTesting
import Foundation
import Testing

/// The ingest path: a write transaction that locks its heads, keys and documents up front
/// (`lockAndRead(_:beforeAppendingTo:dedupeKeys:)`), then appends and puts documents. PostgreSQL
/// plans those appends on the heads and duplicates the first statement found; the outcome must be
/// the same as in SQLite, which takes each lock as it goes.
@Suite("Event store contract: batches locked up front")
struct LockedBatchContractTests {
    static func document(_ text: String) -> Data { Data(text.utf8) }

    @Test(arguments: TestDatabases.dialects)
    func appendsAndDocumentsOfALockedBatchCommitTogether(_ dialect: StorageDialect) async throws {
        try await withFreshStore(dialect) { (fixture: StoreFixture) async throws in
            let store = fixture.store
            let stored = try await store.append(to: "chain-0", event("fact", ["n": 0], dedupeKey: "k0"))
            _ = try await store.append(to: "user-u", event("user.linked", ["n": 0]))
            let first = event("fact", ["n": 1], dedupeKey: "k1")
            let (facts, links) = try await store.transaction { transaction in
                let found = try await transaction.lockAndRead(
                    [DocumentKey(model: "chain", key: "1"), DocumentKey(model: "user", key: "u")],
                    beforeAppendingTo: ["chain-1", "chain-2", "chain-0", "user-u"], dedupeKeys: ["k1", "k2", "k0"]
                )
                #expect(found == [nil, nil])
                let facts = try await transaction.append([
                    StreamAppend(stream: "chain-1", events: [first]),
                    StreamAppend(stream: "chain-2", events: [event("fact", ["n": 2], dedupeKey: "k2")]),
                    StreamAppend(stream: "chain-0", events: [event("fact", ["n": 3], dedupeKey: "k0")]),
                ])
                try await transaction.putDocuments([
                    ProjectionDocument(model: "chain", key: "1", data: Self.document(#"{"v":1}"#)),
                    ProjectionDocument(model: "user", key: "u", data: Self.document(#"{"v":1}"#)),
                ])
                // A second append and a second put of the same document in the same transaction.
                let links = try await transaction.append([StreamAppend(stream: "user-u", events: [event("user.linked", ["n": 4])])])
                try await transaction.putDocuments([ProjectionDocument(model: "user", key: "u", data: Self.document(#"{"v":2}"#))])
                return (facts, links)
            }
            #expect(facts.map(\.isDuplicate) == [false, false, true])
            #expect(facts[2].events.first?.eventID == stored.eventID)
            #expect(facts[2].events.first?.position == stored.position)
            #expect(links.map(\.streamVersion) == [2])
            let written = [facts[0].events[0], facts[1].events[0], links[0].events[0]]
            #expect(written.allSatisfy { $0.position > stored.position })
            // The log holds them at the positions the transaction answered, in that order.
            let log = try await readLog(store, atLeast: 5).events
            #expect(log.dropFirst(2).map(\.eventID) == written.map(\.eventID))
            #expect(log.dropFirst(2).map(\.position) == written.map(\.position))
            #expect(Set(log.dropFirst(2).map(\.cursor.transaction)).count == 1)
            #expect(try await store.readStream("chain-1").map(\.eventID) == [first.eventID])
            #expect(try await store.readStream("user-u").map(\.streamVersion) == [1, 2])
            #expect(try await store.document(model: "chain", key: "1") == Self.document(#"{"v":1}"#))
            #expect(try await store.document(model: "user", key: "u") == Self.document(#"{"v":2}"#))
            #expect(try await store.audit(progress: nil).isIntact)
            // Single appends carry on from the heads it left.
            _ = try await store.append(to: "chain-2", event("fact", ["n": 5]), expectedVersion: .exact(1))
            #expect(try await store.readStream("chain-2").map(\.streamVersion) == [1, 2])
        }
    }

    /// Statements after appends and puts (a read, an append with an expected version, an append to a
    /// stream not locked up front) see them.
    @Test(arguments: TestDatabases.dialects)
    func laterStatementsOfTheTransactionSeeItsEarlierWrites(_ dialect: StorageDialect) async throws {
        try await withFreshStore(dialect) { (fixture: StoreFixture) async throws in
            let store = fixture.store
            try await store.transaction { transaction in
                _ = try await transaction.lockAndRead([DocumentKey(model: "chain", key: "1")], beforeAppendingTo: ["chain-1"], dedupeKeys: ["k1"])
                _ = try await transaction.append([StreamAppend(stream: "chain-1", events: [event("fact", ["n": 1], dedupeKey: "k1")])])
                try await transaction.putDocuments([ProjectionDocument(model: "chain", key: "1", data: Self.document(#"{"v":1}"#))])
                #expect(try await transaction.document(model: "chain", key: "1") == Self.document(#"{"v":1}"#))
                let next = try await transaction.append(to: "chain-1", [event("fact", ["n": 2])], expectedVersion: .exact(1))
                #expect(next.streamVersion == 2)
                // Not locked beforehand: this one takes its own locks, after the writes above.
                let other = try await transaction.append([StreamAppend(stream: "chain-9", events: [event("fact", ["n": 3], dedupeKey: "k1")])])
                #expect(other.map(\.isDuplicate) == [true])
            }
            #expect(try await store.readStream("chain-1").map(\.streamVersion) == [1, 2])
            #expect(try await store.readStream("chain-9").isEmpty)
            #expect(try await store.audit(progress: nil).isIntact)
        }
    }

    @Test(arguments: TestDatabases.dialects)
    func aFailureAfterALockedBatchLeavesNothing(_ dialect: StorageDialect) async throws {
        struct Refused: Error {}
        try await withFreshStore(dialect) { (fixture: StoreFixture) async throws in
            let store = fixture.store
            await #expect(throws: Refused.self) {
                try await store.transaction { transaction in
                    _ = try await transaction.lockAndRead([DocumentKey(model: "chain", key: "1")], beforeAppendingTo: ["chain-1"], dedupeKeys: ["k1"])
                    _ = try await transaction.append([StreamAppend(stream: "chain-1", events: [event("fact", ["n": 1], dedupeKey: "k1")])])
                    try await transaction.putDocuments([ProjectionDocument(model: "chain", key: "1", data: Self.document(#"{"v":1}"#))])
                    throw Refused()
                }
            }
            #expect(try await store.eventCount() == 0)
            #expect(try await store.streamVersion("chain-1") == 0)
            #expect(try await store.document(model: "chain", key: "1") == nil)
            // Nothing stale is remembered: the same key lands afterwards.
            let again = try await store.append(to: "chain-1", event("fact", ["n": 1], dedupeKey: "k1"), expectedVersion: .noStream)
            #expect(again.isDuplicate == false)
        }
    }

    /// Locked batches racing over the same streams, keys and document: every fact lands once, each
    /// stream stays a whole hash chain, and no update of the document is lost.
    @Test(arguments: TestDatabases.dialects)
    func concurrentLockedBatchesAllLandOnce(_ dialect: StorageDialect) async throws {
        try await withFreshStore(dialect) { (fixture: StoreFixture) async throws in
            let store = fixture.store
            let counter = DocumentKey(model: "counter", key: "c")
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<16 {
                    group.addTask {
                        try await store.transaction { transaction in
                            let key = "b\(index % 8)"
                            let found = try await transaction.lockAndRead([counter], beforeAppendingTo: ["chain-a", "chain-b"], dedupeKeys: [key])
                            let results = try await transaction.append([
                                StreamAppend(stream: "chain-a", events: [event("fact", ["n": index])]),
                                StreamAppend(stream: "chain-b", events: [event("fact", ["n": index], dedupeKey: key)]),
                            ])
                            let count = (found.first ?? nil).map { Int(String(decoding: $0, as: UTF8.self)) ?? 0 } ?? 0
                            let added = results.filter { !$0.isDuplicate }.count
                            try await transaction.putDocuments([ProjectionDocument(model: counter.model, key: counter.key, data: Self.document("\(count + added)"))])
                        }
                    }
                }
                try await group.waitForAll()
            }
            #expect(try await store.readStream("chain-a").map(\.streamVersion) == Array(1...16))
            #expect(try await store.readStream("chain-b").map(\.streamVersion) == Array(1...8))
            #expect(try await store.document(model: counter.model, key: counter.key) == Self.document("24"))
            let log = try await readLog(store, atLeast: 24).events
            #expect(Set(log.map(\.position)).count == 24)
            #expect(try await store.audit(progress: nil).isIntact)
        }
    }
}
