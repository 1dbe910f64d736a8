import EventStore
import EventStoreTesting
import Foundation
import Testing

/// Several read-model documents locked and read, or written, at once (one round trip in PostgreSQL).
@Suite("Event store contract: documents in batches")
struct DocumentBatchContractTests {
    static let start = EventCursor(transaction: 0, position: 1)

    @Test(arguments: TestDatabases.dialects)
    func documentsAreWrittenTogetherAndReadBackInTheOrderAsked(_ dialect: StorageDialect) async throws {
        try await withFreshStore(dialect) { (fixture: StoreFixture) async throws in
            let store = fixture.store
            try await store.commitProjection(checkpoint: "write", expected: nil, next: Self.start) { transaction in
                try await transaction.putDocuments([
                    ProjectionDocument(model: "chain", key: "1", data: Data(#"{"n":1}"#.utf8)),
                    ProjectionDocument(model: "user", key: "1", data: Data(#"{"n":"u1"}"#.utf8)),
                    ProjectionDocument(model: "chain", key: "2", data: Data(#"{"n":2}"#.utf8)),
                ])
                try await transaction.putDocuments([])
            }
            try await store.commitProjection(checkpoint: "read", expected: nil, next: Self.start) { transaction in
                let found = try await transaction.lockAndRead([
                    DocumentKey(model: "user", key: "1"), DocumentKey(model: "chain", key: "missing"),
                    DocumentKey(model: "chain", key: "2"), DocumentKey(model: "chain", key: "1"),
                ])
                #expect(found.map { $0.map { String(decoding: $0, as: UTF8.self) } } == [#"{"n":"u1"}"#, nil, #"{"n":2}"#, #"{"n":1}"#])
                #expect(try await transaction.lockAndRead([]).isEmpty)
                // Replacing keeps one row per key.
                try await transaction.putDocuments([ProjectionDocument(model: "chain", key: "1", data: Data(#"{"n":10}"#.utf8))])
            }
            #expect(try await store.document(model: "chain", key: "1") == Data(#"{"n":10}"#.utf8))
            #expect(try await store.projectionDocuments().count == 3)
        }
    }

    /// The second transaction's batch waits for the first's lock and then reads what it committed:
    /// an ingest never folds into a document another ingest is about to overwrite.
    @Test(arguments: TestDatabases.dialects)
    func aBatchWaitsForTheLockAndReadsWhatItsHolderCommitted(_ dialect: StorageDialect) async throws {
        try await withFreshStore(dialect) { (fixture: StoreFixture) async throws in
            let store = fixture.store
            let (holding, held) = AsyncStream<Void>.makeStream()
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    try await store.commitProjection(checkpoint: "first", expected: nil, next: Self.start) { transaction in
                        _ = try await transaction.lockAndRead([DocumentKey(model: "user", key: "u"), DocumentKey(model: "chain", key: "c")])
                        held.yield()
                        try await Task.sleep(for: .milliseconds(300))
                        try await transaction.putDocuments([ProjectionDocument(model: "user", key: "u", data: Data(#"{"by":"first"}"#.utf8))])
                    }
                }
                for await _ in holding { break }
                try await store.commitProjection(checkpoint: "second", expected: nil, next: Self.start) { transaction in
                    let found = try await transaction.lockAndRead([DocumentKey(model: "chain", key: "c"), DocumentKey(model: "user", key: "u")])
                    #expect(found.last.flatMap { $0.map { String(decoding: $0, as: UTF8.self) } } == #"{"by":"first"}"#)
                }
                try await group.waitForAll()
            }
        }
    }
}
