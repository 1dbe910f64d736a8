import EventStore
import EventStoreTesting
import Foundation
import Testing

@Suite("Event store contract: a document read with the documents it names")
struct RelatedDocumentsContractTests {
    @Test(arguments: TestDatabases.dialects)
    func aDocumentComesWithTheDocumentsNamedAtItsPath(_ dialect: StorageDialect) async throws {
        try await withFreshStore(dialect) { (fixture: StoreFixture) async throws in
            let store = fixture.store
            try await store.commitProjection(checkpoint: "setup", expected: nil, next: EventCursor(transaction: 0, position: 1)) { _, transaction in
                let user = #"{"position":3,"state":{"chains":{"b":1,"a":2,"missing":3},"userId":"u1"}}"#
                try await transaction.putDocument(model: "user", key: "u1", data: Data(user.utf8))
                try await transaction.putDocument(model: "user", key: "u2", data: Data(#"{"state":{"userId":"u2"}}"#.utf8))
                for key in ["a", "b", "c"] {
                    try await transaction.putDocument(model: "chain", key: key, data: Data(#"{"id":"\#(key)"}"#.utf8))
                }
                // Same key, other model: not named by the path's model.
                try await transaction.putDocument(model: "other", key: "a", data: Data(#"{"id":"other"}"#.utf8))
            }

            let read = try #require(try await store.document(model: "user", key: "u1", relatedModel: "chain", keysAt: ["state", "chains"]))
            #expect(try CanonicalJSON.canonicalize(read.data) == CanonicalJSON.canonicalize(Data(#"{"position":3,"state":{"chains":{"a":2,"b":1,"missing":3},"userId":"u1"}}"#.utf8)))
            #expect(read.related.map(\.key) == ["a", "b"])
            #expect(read.related.map(\.model) == ["chain", "chain"])
            #expect(try read.related.map { try CanonicalJSON.canonicalize($0.data) } == [Data(#"{"id":"a"}"#.utf8), Data(#"{"id":"b"}"#.utf8)])

            // No object at the path: the document alone. No document: nil.
            let alone = try #require(try await store.document(model: "user", key: "u2", relatedModel: "chain", keysAt: ["state", "chains"]))
            #expect(alone.related.isEmpty)
            #expect(try await store.document(model: "user", key: "nobody", relatedModel: "chain", keysAt: ["state", "chains"]) == nil)
        }
    }
}
