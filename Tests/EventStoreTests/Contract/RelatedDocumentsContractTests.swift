import EventStore
import EventStoreTesting
import Foundation
import Testing

@Suite("Event store contract: a document read with the documents it names")
struct RelatedDocumentsContractTests {
    /// Stored documents the database cannot read as JSON: text that is not JSON, and (PostgreSQL's
    /// jsonb only) an escaped U+0000.
    static func unreadableDocuments(_ dialect: StorageDialect) -> [String] {
        [#"{"state":{"chains":"#] + (dialect == .postgres ? [#"{"state":{"chains":{},"reason":"a\u0000b"}}"#] : [])
    }

    @Test(arguments: TestDatabases.dialects)
    func aDocumentComesWithTheDocumentsNamedAtItsPath(_ dialect: StorageDialect) async throws {
        try await withFreshStore(dialect) { (fixture: StoreFixture) async throws in
            let store = fixture.store
            try await store.commitProjection(checkpoint: "setup", expected: nil, next: EventCursor(transaction: 0, position: 1)) { transaction in
                let user = #"{"position":3,"state":{"chains":{"b":1,"a":2,"missing":3},"userId":"u1"}}"#
                try await transaction.putDocument(model: "user", key: "u1", data: Data(user.utf8))
                try await transaction.putDocument(model: "user", key: "u2", data: Data(#"{"state":{"userId":"u2"}}"#.utf8))
                try await transaction.putDocument(model: "user", key: "u3", data: Data(#"{"state":{"chains":{"gone":1},"userId":"u3"}}"#.utf8))
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
            // Every named document missing: the document alone too.
            let orphan = try #require(try await store.document(model: "user", key: "u3", relatedModel: "chain", keysAt: ["state", "chains"]))
            #expect(orphan.related.isEmpty)
            #expect(try await store.document(model: "user", key: "nobody", relatedModel: "chain", keysAt: ["state", "chains"]) == nil)
        }
    }

    /// A stored document the database cannot read as JSON fails the read as the store's error, not
    /// as an invalid event, which the API would answer as the reader's fault (SQLite did, for text
    /// that is not JSON). PostgreSQL also cannot cast an escaped U+0000 to jsonb.
    @Test(arguments: TestDatabases.dialects)
    func aDocumentTheDatabaseCannotReadIsADatabaseError(_ dialect: StorageDialect) async throws {
        try await withFreshStore(dialect) { (fixture: StoreFixture) async throws in
            let store = fixture.store
            let unreadable = Self.unreadableDocuments(dialect)
            for (index, text) in unreadable.enumerated() {
                try await store.commitProjection(
                    checkpoint: "setup", expected: index == 0 ? nil : EventCursor(transaction: 0, position: Int64(index)),
                    next: EventCursor(transaction: 0, position: Int64(index + 1))
                ) { transaction in
                    // A related document too: with none, SQLite need not read the user's.
                    try await transaction.putDocument(model: "chain", key: "c1", data: Data("{}".utf8))
                    try await transaction.putDocument(model: "user", key: "u1", data: Data(text.utf8))
                }
                await expectStoreError(.databaseError, "the read of \(text)") {
                    _ = try await store.document(model: "user", key: "u1", relatedModel: "chain", keysAt: ["state", "chains"])
                }
            }
        }
    }

    /// One stored document the database cannot read fails only its own readers: on PostgreSQL it
    /// failed the shared statement of every read batched with it, other users' too (a document
    /// without an object at the path as well).
    @Test(arguments: TestDatabases.dialects)
    func anUnreadableDocumentFailsOnlyItsOwnReads(_ dialect: StorageDialect) async throws {
        try await withFreshStore(dialect) { (fixture: StoreFixture) async throws in
            let store = fixture.store
            // What PostgreSQL cannot read as jsonb, and JSON without an object at the path.
            let unreadable = try #require(Self.unreadableDocuments(dialect).last)
            let shapeless = #"{"state":{"chains":["c1"]}}"#
            try await store.commitProjection(checkpoint: "setup", expected: nil, next: EventCursor(transaction: 0, position: 1)) { transaction in
                try await transaction.putDocument(model: "chain", key: "c1", data: Data("{}".utf8))
                try await transaction.putDocument(model: "user", key: "bad", data: Data(unreadable.utf8))
                try await transaction.putDocument(model: "user", key: "odd", data: Data(shapeless.utf8))
                for index in 0..<20 {
                    try await transaction.putDocument(model: "user", key: "u\(index)", data: Data(#"{"state":{"chains":{"c1":1}}}"#.utf8))
                }
            }
            // Each read's outcome: its related keys, or nil when it failed.
            let outcomes = try await withThrowingTaskGroup(of: (String, [String]?).self) { group in
                for round in 0..<10 {
                    for key in ["bad", "odd"] + (0..<20).map({ "u\($0)" }) {
                        group.addTask {
                            do {
                                let read = try await store.document(model: "user", key: key, relatedModel: "chain", keysAt: ["state", "chains"])
                                return (key, read?.related.map(\.key) ?? ["(none)"])
                            } catch {
                                #expect(error.storeCode == .databaseError, "round \(round), \(key): \(error)")
                                return (key, nil)
                            }
                        }
                    }
                }
                var outcomes: [(String, [String]?)] = []
                for try await outcome in group { outcomes.append(outcome) }
                return outcomes
            }
            #expect(outcomes.filter { $0.0 == "bad" }.map(\.1) == Array(repeating: nil, count: 10))
            // No object at the path: PostgreSQL cannot list its keys; SQLite lists an array's indexes,
            // which name no chain. Either way that user's own reads only.
            #expect(outcomes.filter { $0.0 == "odd" }.map(\.1) == Array(repeating: dialect == .postgres ? nil : [], count: 10))
            let others = outcomes.filter { $0.0.hasPrefix("u") }
            let failed = others.filter { $0.1 != ["c1"] }.map(\.0)
            #expect(others.count == 200 && failed.isEmpty, "\(others.count) reads of readable documents, failed: \(failed)")
        }
    }

    /// PostgreSQL batches concurrent reads into shared statements: each caller must still get its
    /// own document and its own related documents, and a read made after a write must see it.
    @Test(arguments: TestDatabases.dialects)
    func concurrentReadsEachGetTheirOwnDocumentsAndSeeEarlierWrites(_ dialect: StorageDialect) async throws {
        try await withFreshStore(dialect) { (fixture: StoreFixture) async throws in
            let store = fixture.store
            let users = 200
            try await store.commitProjection(checkpoint: "setup", expected: nil, next: EventCursor(transaction: 0, position: 1)) { transaction in
                for index in 0..<users {
                    let chains = (0..<(index % 3)).map { #""c\#(index)-\#($0)":1"# }.joined(separator: ",")
                    let user = #"{"state":{"chains":{\#(chains)},"userId":"u\#(index)"}}"#
                    try await transaction.putDocument(model: "user", key: "u\(index)", data: Data(user.utf8))
                    for chain in 0..<(index % 3) {
                        try await transaction.putDocument(model: "chain", key: "c\(index)-\(chain)", data: Data(#"{"owner":"u\#(index)"}"#.utf8))
                    }
                }
            }
            let reads = try await withThrowingTaskGroup(of: (Int, DocumentWithRelated?).self) { group in
                for index in 0..<(users + 20) {
                    group.addTask {
                        (index, try await store.document(model: "user", key: "u\(index)", relatedModel: "chain", keysAt: ["state", "chains"]))
                    }
                }
                return try await group.reduce(into: [Int: DocumentWithRelated?]()) { $0[$1.0] = $1.1 }
            }
            for index in 0..<users {
                let read = try #require(reads[index] ?? nil)
                let user = try #require(try JSONSerialization.jsonObject(with: read.data) as? [String: Any])
                #expect((user["state"] as? [String: Any])?["userId"] as? String == "u\(index)")
                #expect(read.related.map(\.key) == (0..<(index % 3)).map { "c\(index)-\($0)" })
                for related in read.related {
                    #expect(String(decoding: related.data, as: UTF8.self).contains(#""u\#(index)""#))
                }
            }
            for index in users..<(users + 20) {
                #expect(reads[index] == .some(nil))
            }

            // Writes and reads interleaved: every read starts after the write it follows committed.
            for round in 0..<20 {
                try await store.commitProjection(
                    checkpoint: "setup", expected: EventCursor(transaction: 0, position: Int64(round + 1)),
                    next: EventCursor(transaction: 0, position: Int64(round + 2))
                ) { transaction in
                    try await transaction.putDocument(model: "user", key: "u0", data: Data(#"{"round":\#(round)}"#.utf8))
                }
                async let other = store.document(model: "user", key: "u1", relatedModel: "chain", keysAt: ["state", "chains"])
                let read = try #require(try await store.document(model: "user", key: "u0", relatedModel: "chain", keysAt: ["state", "chains"]))
                #expect(String(decoding: read.data, as: UTF8.self).contains(#""round":\#(round)"#))
                _ = try await other
            }
        }
    }
}
