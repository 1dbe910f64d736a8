@testable import EventStore
import EventStoreTesting
import Foundation
import Synchronization
import Testing

/// Appends made together in one write transaction (a fact and the link it implies).
@Suite("Event store contract: appends inside an append's transaction")
struct TransactionAppendContractTests {
    @Test(arguments: TestDatabases.dialects)
    func eventsAppendedInsideCommitWithTheOuterAppend(_ dialect: StorageDialect) async throws {
        try await withFreshStore(dialect) { (fixture: StoreFixture) async throws in
            let store = fixture.store
            _ = try await store.append(to: "user-a", event("user.linked", ["n": 0]), expectedVersion: .any)
            let outer = try await store.transaction { transaction in
                let outer = try await transaction.append(to: "chain-1", [event("fact", ["n": 1])], expectedVersion: .any)
                let first = try await transaction.append(to: "user-a", [event("user.linked", ["n": 2])], expectedVersion: .exact(1))
                #expect(first.streamVersion == 2)
                let deduped = event("user.unlinked", ["n": 3], dedupeKey: "unlink:x")
                let second = try await transaction.append(to: "user-b", [deduped], expectedVersion: .noStream)
                #expect(second.events.map(\.isDuplicate) == [false])
                // The same dedupe key again, in the same transaction: a no-op.
                let again = try await transaction.append(to: "user-b", [event("user.unlinked", ["n": 4], dedupeKey: "unlink:x")], expectedVersion: .any)
                #expect(again.events.map(\.isDuplicate) == [true])
                #expect(again.events.first?.eventID == deduped.eventID)
                return outer
            }
            #expect(outer.streamVersion == 1)
            #expect(try await store.readStream("user-a").map(\.streamVersion) == [1, 2])
            #expect(try await store.readStream("user-b").map(\.type) == ["user.unlinked"])
            // One transaction: in PostgreSQL the three events share its id; in log order.
            let all = try await readLog(store, atLeast: 4).events
            #expect(all.map(\.streamID) == ["user-a", "chain-1", "user-a", "user-b"])
            #expect(Set(all.dropFirst().map(\.cursor.transaction)).count == 1)
            // The hash chain of a stream written from both places stays whole.
            let audit = try await store.audit(progress: nil)
            #expect(audit.isIntact)
        }
    }

    /// A transaction's events become visible together, so they carry one `recorded_at`, however the
    /// clock moves between its appends: an `as_of` moment never splits a transfer's link from its unlink.
    @Test(arguments: TestDatabases.dialects)
    func everyEventOfATransactionIsRecordedAtTheSameMoment(_ dialect: StorageDialect) async throws {
        // Each reading of the clock is 0.7 ms after the one before.
        let clock = Self.tickingClock(step: 0.0007)
        try await withFreshStore(dialect, now: clock) { (fixture: StoreFixture) async throws in
            let store = fixture.store
            try await store.transaction { transaction in
                _ = try await transaction.append(to: "chain-1", [event("fact", ["n": 1])], expectedVersion: .any)
                _ = try await transaction.append([
                    StreamAppend(stream: "user-a", events: [event("user.linked", ["n": 2])]),
                    StreamAppend(stream: "user-b", events: [event("user.unlinked", ["n": 3])]),
                ])
                _ = try await transaction.append(to: "user-c", [event("user.linked", ["n": 4])], expectedVersion: .any)
            }
            _ = try await store.append(to: "chain-2", event("fact", ["n": 5]), expectedVersion: .any)
            let all = try await readLog(store, atLeast: 5).events
            #expect(Set(all.prefix(4).map(\.recordedAt)).count == 1)
            #expect(all[4].recordedAt > all[0].recordedAt)
        }
    }

    /// A clock whose every reading is `step` seconds after the one before.
    static func tickingClock(step: TimeInterval) -> @Sendable () -> Date {
        let ticks = Mutex(0)
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        return { start.addingTimeInterval(step * Double(ticks.withLock { $0 += 1; return $0 })) }
    }

    /// SQLite's one writer queues writes: one that waited behind another is stamped once it runs,
    /// after the other committed, so an `as_of` moment never sees it before what it waited for.
    /// (PostgreSQL's writers queue only where they share a lock; `PostgresAppendStampTests`.)
    @Test func aSQLiteWriteQueuedBehindAnotherIsStampedAfterItCommits() async throws {
        // Each reading of the clock is 1 ms after the one before.
        let clock = Self.tickingClock(step: 0.001)
        try await withFreshStore(.sqlite, now: clock) { (fixture: StoreFixture) async throws in
            let store = fixture.store
            let sqlite = try #require(store as? SQLiteEventStore)
            try await withThrowingTaskGroup(of: Void.self) { group in
                let releasedAt = try await whileAnAppendIsOpen(store, to: "first", event("holds the writer")) {
                    group.addTask { _ = try await store.append(to: "second", [event("queued")]) }
                    while sqlite.writesWaiting == 0 { try await Task.sleep(for: .milliseconds(1)) }
                    return clock()
                }
                try await group.waitForAll()
                let first = try #require(try await store.readStream("first").first)
                let queued = try #require(try await store.readStream("second").first)
                #expect(first.recordedAt < releasedAt)
                #expect(queued.recordedAt > releasedAt, "queued at \(queued.recordedAt.timeIntervalSince1970), released at \(releasedAt.timeIntervalSince1970)")
            }
        }
    }

    @Test(arguments: TestDatabases.dialects)
    func aFailureAfterwardsRollsBackEveryAppendOfTheTransaction(_ dialect: StorageDialect) async throws {
        struct Refused: Error {}
        try await withFreshStore(dialect) { (fixture: StoreFixture) async throws in
            let store = fixture.store
            await #expect(throws: Refused.self) {
                try await store.transaction { transaction in
                    _ = try await transaction.append(to: "chain-1", [event("fact", ["n": 1])], expectedVersion: .any)
                    _ = try await transaction.append(to: "user-a", [event("user.linked", ["n": 2])], expectedVersion: .any)
                    throw Refused()
                }
            }
            #expect(try await store.eventCount() == 0)
            #expect(try await store.streamVersion("user-a") == 0)
            // A version conflict inside is typed and also leaves nothing behind.
            await #expect {
                try await store.transaction { transaction in
                    _ = try await transaction.append(to: "chain-1", [event("fact", ["n": 1])], expectedVersion: .any)
                    _ = try await transaction.append(to: "user-a", [event("user.linked", ["n": 2])], expectedVersion: .exact(3))
                }
            } throws: { $0.storeCode == .versionConflict }
            #expect(try await store.eventCount() == 0)
            // The streams work as before afterwards (no stale head remembered from the rolled-back write).
            _ = try await store.append(to: "user-a", event("user.linked", ["n": 5]), expectedVersion: .noStream)
            #expect(try await store.readStream("user-a").map(\.streamVersion) == [1])
        }
    }

    /// `transaction` groups appends to several streams (group commit): they commit together, a key
    /// seen earlier in it or already stored comes back as that event, and a failure undoes them all.
    @Test(arguments: TestDatabases.dialects)
    func aWriteTransactionCommitsAppendsToSeveralStreamsTogether(_ dialect: StorageDialect) async throws {
        struct Refused: Error {}
        try await withFreshStore(dialect) { (fixture: StoreFixture) async throws in
            let store = fixture.store
            let stored = try await store.append(to: "chain-0", event("fact", ["n": 0], dedupeKey: "k0"))
            let first = event("fact", ["n": 1], dedupeKey: "k1")
            let results = try await store.transaction { transaction in
                [
                    try await transaction.append(to: "chain-1", [first], expectedVersion: .any),
                    try await transaction.append(to: "chain-2", [event("fact", ["n": 2], dedupeKey: "k2")], expectedVersion: .any),
                    try await transaction.append(to: "chain-1", [event("fact", ["n": 3], dedupeKey: "k1")], expectedVersion: .any),
                    try await transaction.append(to: "chain-3", [event("fact", ["n": 4], dedupeKey: "k0")], expectedVersion: .any),
                    try await transaction.append(to: "chain-1", [event("fact", ["n": 5])], expectedVersion: .any),
                ]
            }
            #expect(results.map(\.isDuplicate) == [false, false, true, true, false])
            #expect(results[2].events.first?.eventID == first.eventID)
            #expect(results[2].streamVersion == 1)
            #expect(results[3].events.first?.eventID == stored.eventID)
            #expect(results[3].events.first?.streamID == "chain-0")
            #expect(results[3].streamVersion == 0)
            #expect(results[4].streamVersion == 2)
            let log = try await readLog(store, atLeast: 4).events
            #expect(log.map(\.streamID) == ["chain-0", "chain-1", "chain-2", "chain-1"])
            #expect(Set(log.dropFirst().map(\.cursor.transaction)).count == 1)
            #expect(try await store.readStream("chain-3").isEmpty)

            await #expect(throws: Refused.self) {
                try await store.transaction { transaction in
                    _ = try await transaction.append(to: "chain-4", [event("fact", ["n": 6])], expectedVersion: .any)
                    _ = try await transaction.append(to: "chain-1", [event("fact", ["n": 7])], expectedVersion: .any)
                    throw Refused()
                }
            }
            #expect(try await store.eventCount() == 4)
            #expect(try await store.streamVersion("chain-1") == 2)
            #expect(try await store.audit(progress: nil).isIntact)
        }
    }

    /// Write transactions racing over the same two streams all land, each stream a whole hash chain.
    @Test(arguments: TestDatabases.dialects)
    func concurrentWriteTransactionsOverTheSameStreamsAllLand(_ dialect: StorageDialect) async throws {
        try await withFreshStore(dialect) { (fixture: StoreFixture) async throws in
            let store = fixture.store
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<12 {
                    group.addTask {
                        try await store.transaction { transaction in
                            _ = try await transaction.append(to: "chain-a", [event("fact", ["n": index])], expectedVersion: .any)
                            _ = try await transaction.append(to: "chain-b", [event("fact", ["n": index], dedupeKey: "b\(index)")], expectedVersion: .any)
                        }
                    }
                }
                try await group.waitForAll()
            }
            #expect(try await store.readStream("chain-a").map(\.streamVersion) == Array(1...12))
            #expect(try await store.readStream("chain-b").map(\.streamVersion) == Array(1...12))
            #expect(try await store.audit(progress: nil).isIntact)
        }
    }

    /// A multi-stream append answers as appends one after another would: versions run on across
    /// parts of one stream, a key stored or used earlier in the call is that event, and the log and
    /// hash chains are the same as with single appends.
    @Test(arguments: TestDatabases.dialects)
    func aMultiStreamAppendAnswersAsAppendsOneAfterAnother(_ dialect: StorageDialect) async throws {
        try await withFreshStore(dialect) { (fixture: StoreFixture) async throws in
            let store = fixture.store
            _ = try await store.append(to: "chain-1", event("fact", ["n": 0]))
            let stored = try await store.append(to: "chain-0", event("fact", ["n": 1], dedupeKey: "k-stored"))
            let first = event("fact", ["n": 2], dedupeKey: "k-new")
            let results = try await store.transaction { transaction in
                try await transaction.append([
                    StreamAppend(stream: "chain-2", events: [first, event("fact", ["n": 3])]),
                    StreamAppend(stream: "chain-1", events: [event("fact", ["n": 4])]),
                    StreamAppend(stream: "chain-3", events: [event("fact", ["n": 5], dedupeKey: "k-stored")]),
                    StreamAppend(stream: "chain-2", events: [event("fact", ["n": 6], dedupeKey: "k-new"), event("fact", ["n": 7])]),
                    StreamAppend(stream: "chain-4", events: []),
                ])
            }
            #expect(results.map { $0.events.map(\.isDuplicate) } == [[false, false], [false], [true], [true, false], []])
            #expect(results.map(\.streamVersion) == [2, 2, 0, 3, 0])
            #expect(results[2].events.first?.eventID == stored.eventID)
            #expect(results[2].events.first?.position == stored.position)
            #expect(results[3].events.first?.eventID == first.eventID)
            #expect(results[3].events.first?.position == results[0].events.first?.position)
            #expect(results[3].events.first?.streamVersion == 1)
            let log = try await readLog(store, atLeast: 6).events
            #expect(log.dropFirst(2).map(\.streamID) == ["chain-2", "chain-2", "chain-1", "chain-2"])
            #expect(log.dropFirst(2).map(\.position) == [results[0].events[0].position, results[0].events[1].position,
                                                          results[1].events[0].position, results[3].events[1].position])
            #expect(Set(log.dropFirst(2).map(\.cursor.transaction)).count == 1)
            #expect(try await store.readStream("chain-2").map(\.streamVersion) == [1, 2, 3])
            #expect(try await store.readStream("chain-3").isEmpty)
            #expect(try await store.streamVersion("chain-4") == 0)
            #expect(try await store.audit(progress: nil).isIntact)
            // Single appends carry on from the heads it left.
            _ = try await store.append(to: "chain-2", event("fact", ["n": 8]), expectedVersion: .exact(3))
            #expect(try await store.audit(progress: nil).isIntact)
        }
    }

    /// Multi-stream appends racing to create and extend the same streams all land, as do single
    /// appends between them, and every stream stays a whole hash chain.
    @Test(arguments: TestDatabases.dialects)
    func concurrentMultiStreamAppendsOverTheSameStreamsAllLand(_ dialect: StorageDialect) async throws {
        try await withFreshStore(dialect) { (fixture: StoreFixture) async throws in
            let store = fixture.store
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<12 {
                    group.addTask {
                        _ = try await store.transaction { transaction in
                            try await transaction.append([
                                StreamAppend(stream: "chain-b", events: [event("fact", ["n": index], dedupeKey: "b\(index)")]),
                                StreamAppend(stream: "chain-a", events: [event("fact", ["n": index])]),
                            ])
                        }
                    }
                    group.addTask {
                        _ = try await store.append(to: "chain-a", event("single", ["n": index]))
                    }
                }
                try await group.waitForAll()
            }
            #expect(try await store.readStream("chain-a").map(\.streamVersion) == Array(1...24))
            #expect(try await store.readStream("chain-b").map(\.streamVersion) == Array(1...12))
            #expect(try await store.audit(progress: nil).isIntact)
        }
    }

    /// A transaction that rolls back leaves no head of its appends in the process's cache: another
    /// process may then store those versions itself, and the next append here must chain from what
    /// it stored, or the stream's hash chain breaks for good.
    @Test(.enabled(if: TestDatabases.dialects.contains(.postgres)))
    func aRolledBackTransactionLeavesNoHeadBehindForTheNextAppend() async throws {
        guard let url = TestDatabases.postgresURL else { throw PostgreSQLRequired() }
        struct Abandoned: Error {}
        try await withPostgresSchema(url: url) { settings, _, _ in
            let here = PostgresEventStore(settings: settings, logger: TestDatabases.logger)
            let elsewhere = PostgresEventStore(settings: settings, logger: TestDatabases.logger)
            try await withRunning(here) {
                try await withRunning(elsewhere) {
                    try await here.migrate()
                    _ = try await here.append(to: "s", [event("one")], expectedVersion: .any)
                    await #expect(throws: Abandoned.self) {
                        try await here.transaction { transaction in
                            _ = try await transaction.append(to: "s", [event("rolled back")], expectedVersion: .any)
                            throw Abandoned()
                        }
                    }
                    _ = try await elsewhere.append(to: "s", [event("two")], expectedVersion: .any)
                    // Nothing to append answers with the stored version, not a guess from the cache.
                    #expect(try await here.append(to: "s", []).streamVersion == 2)
                    _ = try await here.append(to: "s", [event("three")], expectedVersion: .any)
                    #expect(try await here.readStream("s").map(\.type) == ["one", "two", "three"])
                    let report = try await here.audit(progress: nil)
                    #expect(report.isIntact, "\(report)")
                }
            }
        }
    }
}
