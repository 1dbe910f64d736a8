import EventStore
import EventStoreTesting
import Foundation
import Testing

/// A fold (a replay) reads the history committed at one moment, in position order, page by page.
@Suite("Event store contract: reading for a fold")
struct FoldReadContractTests {
    @Test(arguments: TestDatabases.dialects)
    func aFoldPagesByPositionThroughWhatWasCommittedAtItsSnapshot(_ dialect: StorageDialect) async throws {
        try await withFreshStore(dialect) { (fixture: StoreFixture) async throws in
            let store = fixture.store
            var appended: [UUID] = []
            for index in 0..<5 {
                let next = event("e", ["i": index])
                appended.append(next.eventID)
                _ = try await store.append(to: "stream-\(index % 2)", next, expectedVersion: .any)
            }
            let snapshot = try await store.foldingSnapshot()
            _ = try await store.append(to: "stream-0", event("after-the-snapshot"), expectedVersion: .any)

            var folded: [FoldableEvent] = []
            var after: Int64 = 0
            while true {
                let page = try await store.readAllForFolding(in: snapshot, after: after, limit: 2)
                guard let last = page.last else { break }
                #expect(page.count <= 2)
                folded += page
                after = last.position
            }
            #expect(folded.map(\.eventID) == appended)
            #expect(folded.map(\.position) == folded.map(\.position).sorted())
            // A later snapshot covers the later event.
            let later = try await store.readAllForFolding(in: try await store.foldingSnapshot(), after: after, limit: 10)
            #expect(later.map(\.type) == ["after-the-snapshot"])
        }
    }

    /// The feed's readers wait for an older open transaction to end before they see later events;
    /// a fold's snapshot covers every event committed when it was taken, whatever is still open.
    @Test(.enabled(if: TestDatabases.dialects.contains(.postgres)))
    func anEventCommittedBehindAnOlderOpenTransactionIsInTheSnapshot() async throws {
        try await withFreshStore(.postgres) { (fixture: StoreFixture) async throws in
            let raw = try #require(fixture.rawPostgres)
            try await raw.withConnection { connection in
                _ = try await connection.query("BEGIN", logger: TestDatabases.logger)
                _ = try await connection.query("SELECT pg_current_xact_id()", logger: TestDatabases.logger)
                _ = try await fixture.store.append(to: "s", [event("behind")], expectedVersion: .any)
                #expect(try await fixture.store.readAll(after: .start, limit: 10).events.isEmpty)
                let snapshot = try await fixture.store.foldingSnapshot()
                let folded = try await fixture.store.readAllForFolding(in: snapshot, after: 0, limit: 10)
                #expect(folded.map(\.type) == ["behind"])
                _ = try await connection.query("ROLLBACK", logger: TestDatabases.logger)
            }
        }
    }

    /// An event whose transaction was still open when the snapshot was taken is not in it, even once
    /// committed, though its position is below events that are: paging by position past it is safe.
    @Test(.enabled(if: TestDatabases.dialects.contains(.postgres)))
    func anEventOfATransactionOpenAtTheSnapshotIsNotInIt() async throws {
        try await withFreshStore(.postgres) { (fixture: StoreFixture) async throws in
            let store = fixture.store
            let snapshot = try await whileAnAppendIsOpen(store, to: "slow", event("slow")) {
                _ = try await store.append(to: "fast", [event("fast")], expectedVersion: .any)
                return try await store.foldingSnapshot()
            }
            let folded = try await store.readAllForFolding(in: snapshot, after: 0, limit: 10)
            #expect(folded.map(\.type) == ["fast"])
            let now = try await store.readAllForFolding(in: try await store.foldingSnapshot(), after: 0, limit: 10)
            #expect(now.map(\.type) == ["slow", "fast"])
        }
    }
}
