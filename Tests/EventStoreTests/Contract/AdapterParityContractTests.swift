import EventStore
import EventStoreTesting
import Foundation
import PostgresNIO
import Synchronization
import Testing

/// Inputs where the two adapters once answered differently (found by a parity audit): each must now
/// get the same answer from both.
@Suite("Event store contract: the adapters answer alike")
struct AdapterParityContractTests {
    /// SQLite kept text holding U+0000 and read it back cut there (a stream "a\0b" read as "a", and
    /// the audit saw a hash mismatch nobody made); PostgreSQL refused it as a database error. Both
    /// now refuse it as an invalid event before writing anything, on every append path.
    @Test(arguments: TestDatabases.dialects)
    func textHoldingNULIsAnInvalidEventOnEveryAppendPath(_ dialect: StorageDialect) async throws {
        try await withFreshStore(dialect) { (fixture: StoreFixture) async throws in
            let store = fixture.store
            let refused: [(String, NewEvent)] = [
                ("a\u{0}b", event("t")),
                ("s", event("t\u{0}")),
                ("s", event("t", dedupeKey: "key\u{0}")),
                ("s", NewEvent(type: "t", data: Data("{}".utf8) + Data([0]) + Data("x".utf8))),
                ("s", NewEvent(type: "t", data: Data("{}".utf8), metadata: Data(#"{"a":""#.utf8) + Data([0]) + Data(#""}"#.utf8))),
            ]
            for (stream, bad) in refused {
                await expectStoreError(.invalidEvent, "an append of \(bad.type) to \(stream)") {
                    _ = try await store.append(to: stream, [bad])
                }
                await expectStoreError(.invalidEvent, "a transaction's append of \(bad.type) to \(stream)") {
                    try await store.transaction { _ = try await $0.append(to: stream, [bad], expectedVersion: .any) }
                }
                await expectStoreError(.invalidEvent, "a multi-stream append of \(bad.type) to \(stream)") {
                    try await store.transaction { transaction in
                        _ = try await transaction.append([StreamAppend(stream: "other", events: [event("fine")]), StreamAppend(stream: stream, events: [bad])])
                    }
                }
            }
            #expect(try await store.eventCount() == 0)
            #expect(try await store.streamVersion("a") == 0)
            #expect(try await store.streamVersion("s") == 0)
            // Reads of such a name find nothing (PostgreSQL refused even to look).
            _ = try await store.append(to: "a", [event("t")])
            try await store.transaction { try await $0.putDocument(model: "m", key: "a", data: Data("{}".utf8)) }
            #expect(try await store.streamVersion("a\u{0}b") == 0)
            #expect(try await store.readStream("a\u{0}b").isEmpty)
            #expect(try await store.readAll(streams: ["a\u{0}b"], after: .start, limit: 10).events.isEmpty)
            #expect(try await store.document(model: "m", key: "a\u{0}b") == nil)
            #expect(try await store.document(model: "m", key: "a\u{0}b", relatedModel: "m", keysAt: ["x"]) == nil)
        }
    }

    /// A document named with U+0000 is refused where it would be written or locked, on both stores
    /// (SQLite kept it, read back under a name cut at the NUL, so `replay --check` saw a difference
    /// that never went away; PostgreSQL answered a database error), and deleting one does nothing.
    @Test(arguments: TestDatabases.dialects)
    func aDocumentNamedWithNULIsRefusedWhereItWouldBeWrittenOrLocked(_ dialect: StorageDialect) async throws {
        try await withFreshStore(dialect) { (fixture: StoreFixture) async throws in
            let store = fixture.store
            let named = DocumentKey(model: "chain", key: "x\u{0}y")
            let attempts: [(String, @Sendable (any ProjectionTransaction) async throws -> Void)] = [
                ("putDocument", { try await $0.putDocument(model: named.model, key: named.key, data: Data("{}".utf8)) }),
                ("putDocuments", { try await $0.putDocuments([ProjectionDocument(model: named.model, key: named.key, data: Data("{}".utf8))]) }),
                ("lock", { try await $0.lock(model: named.model, key: named.key) }),
                ("lockAndRead", { _ = try await $0.lockAndRead(model: named.model, key: named.key) }),
                ("lockAndRead many", { _ = try await $0.lockAndRead([DocumentKey(model: "chain", key: "fine"), named]) }),
                ("the lock statement", { _ = try await $0.lockAndRead([named], beforeAppendingTo: ["s"], dedupeKeys: []) }),
                ("the lock statement's stream", { _ = try await $0.lockAndRead([], beforeAppendingTo: ["s\u{0}"], dedupeKeys: []) }),
                ("the lock statement's key", { _ = try await $0.lockAndRead([], beforeAppendingTo: ["s"], dedupeKeys: ["k\u{0}"]) }),
            ]
            for (name, attempt) in attempts {
                await expectStoreError(.invalidEvent, name) {
                    try await store.transaction { transaction in
                        try await transaction.putDocument(model: "chain", key: "x", data: Data(#"{"kept":false}"#.utf8))
                        try await attempt(transaction)
                    }
                }
            }
            // Nothing of the refused transactions was kept.
            #expect(try await store.projectionDocuments().isEmpty)
            // Beside a stored document that the name would read as, cut at its NUL: a read of the name
            // finds nothing and its delete leaves the stored one (PostgreSQL refused both outright).
            try await store.transaction { try await $0.putDocument(model: "chain", key: "x", data: Data(#"{"kept":true}"#.utf8)) }
            try await store.transaction { transaction in
                #expect(try await transaction.document(model: named.model, key: named.key) == nil)
                try await transaction.deleteDocument(model: named.model, key: named.key)
            }
            #expect(try await store.projectionDocuments().map(\.key) == ["x"])
        }
    }

    /// PostgreSQL's column is 32-bit, and the conversion trapped (ending the process) on a larger
    /// schema version; SQLite stored it. Both refuse it now.
    @Test(arguments: TestDatabases.dialects)
    func aSchemaVersionBeyond32BitsIsAnInvalidEvent(_ dialect: StorageDialect) async throws {
        try await withFreshStore(dialect) { (fixture: StoreFixture) async throws in
            for version in [Int(Int32.max) + 1, Int(Int32.min) - 1] {
                let tooLarge = NewEvent(type: "t", schemaVersion: version, data: Data("{}".utf8))
                await expectStoreError(.invalidEvent, "schema version \(version)") {
                    _ = try await fixture.store.append(to: "s", [event("first"), tooLarge])
                }
            }
            let largest = NewEvent(type: "t", schemaVersion: Int(Int32.max), data: Data("{}".utf8))
            _ = try await fixture.store.append(to: "s", [largest])
            #expect(try await fixture.store.readStream("s").map(\.schemaVersion) == [Int(Int32.max)])
        }
    }

    /// Event data nested deeper than SQLite's JSON functions take (1,000 objects and arrays) was
    /// refused by SQLite's check and stored by PostgreSQL up to several thousand levels, past which
    /// it failed with a stack error (a database error). Both refuse it now, before any statement, in
    /// data and in metadata, and both keep 1,000 levels.
    @Test(arguments: TestDatabases.dialects, [1_001, 5_000, 20_000])
    func eventDataNestedPastAThousandLevelsIsAnInvalidEvent(_ dialect: StorageDialect, depth: Int) async throws {
        @Sendable func nested(_ depth: Int) -> Data {
            Data(("{\"a\":" + String(repeating: "[", count: depth - 1) + String(repeating: "]", count: depth - 1) + "}").utf8)
        }
        try await withFreshStore(dialect) { (fixture: StoreFixture) async throws in
            let store = fixture.store
            await expectStoreError(.invalidEvent, "data \(depth) deep") {
                _ = try await store.append(to: "s", [NewEvent(type: "t", data: nested(depth))])
            }
            await expectStoreError(.invalidEvent, "metadata \(depth) deep") {
                try await store.transaction { transaction in
                    _ = try await transaction.append([StreamAppend(stream: "s", events: [NewEvent(type: "t", data: Data("{}".utf8), metadata: nested(depth))])])
                }
            }
            #expect(try await store.eventCount() == 0)
            _ = try await store.append(to: "s", [NewEvent(type: "t", data: nested(1_000), metadata: nested(1_000))])
            #expect(try await store.readStream("s").first?.data == nested(1_000))
        }
    }

    /// Read models to swap in that name one document twice, or a document with U+0000 in its name,
    /// are refused as an invalid event before anything changes (PostgreSQL answered the first as a
    /// lost race and SQLite as a database error; SQLite stored the second cut at the NUL).
    @Test(arguments: TestDatabases.dialects)
    func readModelsToSwapInAreRefusedWholeForATwiceNamedOrNULNamedDocument(_ dialect: StorageDialect) async throws {
        try await withFreshStore(dialect) { (fixture: StoreFixture) async throws in
            let store = fixture.store
            try await store.transaction { try await $0.putDocument(model: "chain", key: "live", data: Data(#"{"live":true}"#.utf8)) }
            let live = try await store.projectionDocuments()
            let twice = [
                ProjectionDocument(model: "chain", key: "a", data: Data(#"{"n":1}"#.utf8)),
                ProjectionDocument(model: "user", key: "a", data: Data(#"{"n":2}"#.utf8)),
                ProjectionDocument(model: "chain", key: "a", data: Data(#"{"n":3}"#.utf8)),
            ]
            await expectStoreError(.invalidEvent, "one document twice") {
                try await store.replaceProjections(with: twice, foldedEvents: 0)
            }
            await expectStoreError(.invalidEvent, "a document named with NUL") {
                try await store.replaceProjections(with: [ProjectionDocument(model: "chain", key: "a\u{0}b", data: Data("{}".utf8))], foldedEvents: 0)
            }
            #expect(try await store.projectionDocuments() == live)
            // One key under two models, and two keys Swift's String equality takes for one ("é"
            // composed and decomposed), are distinct documents, as both databases store them.
            let distinct = Array(twice.prefix(2)) + ["\u{E9}", "e\u{301}"].map { ProjectionDocument(model: "chain", key: $0, data: Data("{}".utf8)) }
            try await store.replaceProjections(with: distinct, foldedEvents: 0)
            #expect(try await store.projectionDocuments().map { "\($0.model)/\($0.key)" } == ["chain/a", "chain/e\u{301}", "chain/\u{E9}", "user/a"])
        }
    }

    /// Every document comes back in the order of its model's and key's UTF-8 bytes, as SQLite's do.
    /// PostgreSQL ordered by the database's collation, which a cluster made with a language's locale
    /// sets (the tests' cluster is made without one, so here the model and key columns take ICU's
    /// root collation to stand in for it).
    @Test(arguments: TestDatabases.dialects)
    func documentsComeBackInByteOrderWhateverTheCollation(_ dialect: StorageDialect) async throws {
        try await withFreshStore(dialect) { (fixture: StoreFixture) async throws in
            let store = fixture.store
            if dialect == .postgres {
                let raw = try #require(fixture.rawPostgres)
                for column in ["model", "key"] {
                    _ = try await raw.query(PostgresQuery(unsafeSQL: """
                        ALTER TABLE \(fixture.location).projections ALTER COLUMN \(column) TYPE text COLLATE "und-x-icu"
                        """), logger: TestDatabases.logger)
                }
            }
            let keys = ["b", "Z", "\u{E9}", "a", "B", "\u{E4}", "a1", "A"]
            try await store.transaction { transaction in
                for model in ["alpha", "Zed"] {
                    for key in keys {
                        try await transaction.putDocument(model: model, key: key, data: Data("{}".utf8))
                    }
                }
            }
            let sorted = keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            #expect(sorted == ["A", "B", "Z", "a", "a1", "b", "\u{E4}", "\u{E9}"])
            let expected = sorted.map { "Zed/\($0)" } + sorted.map { "alpha/\($0)" }
            #expect(try await store.projectionDocuments().map { "\($0.model)/\($0.key)" } == expected)
        }
    }

    /// A step of a related read's path names one member on both stores, whatever it holds: a dot or
    /// a bracket, a quote, a backslash (SQLite read `a\\b` as no member, refused a step ending in a
    /// backslash and one holding a quote as database errors, where PostgreSQL found each member).
    @Test(arguments: TestDatabases.dialects, ["a.b[0]", "q\"", "a\\b", "x\\", "\\\"", "plain"])
    func aRelatedReadsPathStepNamesOneMemberWhateverItHolds(_ dialect: StorageDialect, step: String) async throws {
        try await withFreshStore(dialect) { (fixture: StoreFixture) async throws in
            let store = fixture.store
            let user = try JSONSerialization.data(withJSONObject: [step: ["c": 1], "plain\\": ["d": 1]])
            try await store.transaction { transaction in
                try await transaction.putDocument(model: "user", key: "u", data: user)
                for key in ["c", "d"] {
                    try await transaction.putDocument(model: "chain", key: key, data: Data("{}".utf8))
                }
            }
            let read = try #require(try await store.document(model: "user", key: "u", relatedModel: "chain", keysAt: [step]))
            #expect(read.related.map(\.key) == ["c"], "step \(step.debugDescription)")
        }
    }

    /// A path step or a related model holding U+0000 is an invalid event on both stores (SQLite
    /// read the step cut at the NUL; PostgreSQL refused it as a database error).
    @Test(arguments: TestDatabases.dialects, [(["a\u{0}"], "chain"), (["a"], "chain\u{0}")])
    func aRelatedReadNamingNULIsAnInvalidEvent(_ dialect: StorageDialect, read: ([String], String)) async throws {
        try await withFreshStore(dialect) { (fixture: StoreFixture) async throws in
            let store = fixture.store
            try await store.transaction { try await $0.putDocument(model: "user", key: "u", data: Data(#"{"a":{"c":1}}"#.utf8)) }
            await expectStoreError(.invalidEvent, "path \(read.0) of \(read.1.debugDescription)") {
                _ = try await store.document(model: "user", key: "u", relatedModel: read.1, keysAt: read.0)
            }
        }
    }

    /// An append of no events answers with the stream's version, on every path. (With one writer the
    /// cache is never stale; `aRolledBackTransactionLeavesNoHeadBehindForTheNextAppend` has the
    /// stale case, where PostgreSQL answered with its cache's guess.)
    @Test(arguments: TestDatabases.dialects)
    func anEmptyAppendAnswersTheStoredVersion(_ dialect: StorageDialect) async throws {
        try await withFreshStore(dialect) { (fixture: StoreFixture) async throws in
            let store = fixture.store
            #expect(try await store.append(to: "s", []).streamVersion == 0)
            _ = try await store.append(to: "s", [event("one"), event("two")])
            #expect(try await store.append(to: "s", []).streamVersion == 2)
            #expect(try await store.append(to: "s", [], expectedVersion: .exact(2)).streamVersion == 2)
            let inside = try await store.transaction { transaction in
                try await transaction.append(to: "s", [], expectedVersion: .any).streamVersion
            }
            #expect(inside == 2)
        }
    }

    /// A limit below 0 reads nothing on both (SQLite read every row, PostgreSQL failed).
    @Test(arguments: TestDatabases.dialects)
    func aNegativeLimitReadsNothing(_ dialect: StorageDialect) async throws {
        try await withFreshStore(dialect) { (fixture: StoreFixture) async throws in
            let store = fixture.store
            _ = try await store.append(to: "s", [event("one"), event("two")])
            try await store.recordRejection(source: "POST /hook", code: "invalid_signature", detail: "d", body: Data("{}".utf8), requestID: nil)
            #expect(try await store.readStream("s", from: 1, limit: -1).isEmpty)
            #expect(try await store.readStream("s", from: 1, limit: 1).count == 1)
            #expect(try await store.rejections(limit: -1).isEmpty)
            #expect(try await store.rejections(limit: 1).count == 1)
            #expect(try await store.readAll(after: .start, limit: -1).events.isEmpty)
        }
    }

    /// A rejection is stamped by the store's clock, as events are. PostgreSQL took the column's
    /// default, the database server's time.
    @Test(arguments: TestDatabases.dialects)
    func aRejectionIsStampedByTheStoresClock(_ dialect: StorageDialect) async throws {
        let moment = Date(timeIntervalSince1970: 1_700_000_000.125)
        try await withFreshStore(dialect, now: { moment }) { (fixture: StoreFixture) async throws in
            try await fixture.store.recordRejection(source: "POST /hook", code: "invalid_signature", detail: "d", body: Data("{}".utf8), requestID: nil)
            let kept = try #require(try await fixture.store.rejections(limit: 1).first)
            #expect(kept.receivedAt == moment, "\(kept.receivedAt.timeIntervalSince1970)")
        }
    }

    /// A projector's appends race with other writers like any write's, and its transaction runs again
    /// as theirs do. (On PostgreSQL a race lost twice within the transaction escaped as an untyped
    /// error; it needs another commit between a head's read and its update, too rare to force here,
    /// so this checks that every append lands and the chain holds.)
    @Test(arguments: TestDatabases.dialects)
    func projectorsAppendingToOneStreamAtOnceAllLand(_ dialect: StorageDialect) async throws {
        try await withFreshStore(dialect) { (fixture: StoreFixture) async throws in
            let store = fixture.store
            let projectors = 8
            let rounds = 5
            try await withThrowingTaskGroup(of: Void.self) { group in
                for projector in 0..<projectors {
                    group.addTask {
                        var at: EventCursor?
                        for round in 0..<rounds {
                            let next = EventCursor(transaction: 0, position: Int64(round + 1))
                            try await store.commitProjection(checkpoint: "p\(projector)", expected: at, next: next) { transaction in
                                _ = try await transaction.append(to: "shared", [event("e", ["p": projector, "r": round])], expectedVersion: .any)
                            }
                            at = next
                        }
                    }
                    group.addTask {
                        for round in 0..<rounds {
                            _ = try await store.append(to: "shared", [event("plain", ["p": projector, "r": round])])
                        }
                    }
                }
                try await group.waitForAll()
            }
            // A projector's appends wake readers as any write's do (SQLite's never raised the signal;
            // on PostgreSQL the relay may still be passing on the earlier appends' hints, so there a
            // rise would prove nothing).
            let before = store.changes.generation
            try await store.commitProjection(checkpoint: "last", expected: nil, next: EventCursor(transaction: 0, position: 1)) { transaction in
                _ = try await transaction.append(to: "elsewhere", [event("e")], expectedVersion: .any)
            }
            if dialect == .sqlite { #expect(store.changes.generation > before) }
            let stream = try await store.readStream("shared")
            #expect(stream.count == projectors * rounds * 2)
            #expect(stream.map(\.streamVersion) == Array(1...Int64(projectors * rounds * 2)))
            for projector in 0..<projectors {
                #expect(try await store.checkpoint("p\(projector)") == EventCursor(transaction: 0, position: Int64(rounds)))
            }
            #expect(try await store.audit(progress: nil).isIntact)
        }
    }
}
