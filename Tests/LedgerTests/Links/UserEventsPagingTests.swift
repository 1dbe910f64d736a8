import AppStoreTesting
import EventStore
import EventStoreTesting
import Foundation
import Ledger
import Synchronization
import Testing

/// `userEvents` pages a user's own stream and the streams of their chains, like the global feed.
@Suite("A user's events, paged while they change")
struct UserEventsPagingTests {
    typealias H = LedgerHarness

    /// Set by the writer when it has written everything, read by the pager.
    final class Flag: Sendable {
        private let state = Mutex(false)
        func set() { state.withLock { $0 = true } }
        var isSet: Bool { state.withLock { $0 } }
    }

    /// A reader pages a user's events while the user gains subscriptions one after another: the
    /// pages together hold every event the full list holds, each once. Paging used to lose a new
    /// chain's purchase when the chain was linked between reading the owned chains and the page.
    @Test(arguments: TestDatabases.dialects)
    func pagingAUsersEventsWhileTheyGainSubscriptionsSkipsNothing(_ dialect: StorageDialect) async throws {
        try await H.run(dialect: dialect) { h in
            let written = Flag()
            let paged = try await withThrowingTaskGroup(of: [String].self) { group in
                group.addTask {
                    for index in 0..<30 {
                        let id = "\(3000 + index)"
                        try await h.submit(user: "u1", H.transaction(id, original: id, purchased: 0, expires: 30), at: 1)
                    }
                    written.set()
                    return []
                }
                group.addTask {
                    var seen: [String] = []
                    var after = EventCursor.start
                    while true {
                        let done = written.isSet
                        let page = try await h.ledger.userEvents(userId: "u1", after: after, limit: 1000)
                        seen += page.events.map { $0.eventID.lowercaseString }
                        after = page.next
                        if done, page.events.isEmpty { return seen }
                    }
                }
                return try await group.reduce(into: []) { $0 += $1 }
            }
            let full = try await h.ledger.userEvents(userId: "u1", after: nil, limit: 1000).events.map { $0.eventID.lowercaseString }
            #expect(full.count == 60)
            #expect(paged.count == Set(paged).count)
            let never = Set(full).subtracting(paged)
            #expect(never.isEmpty, "\(never.count) of \(full.count) events were never paged")
            #expect(Set(paged).isSubset(of: Set(full)))
        }
    }
}
