import AppStoreTesting
import EventStore
import EventStoreTesting
import Foundation
import Ledger
import Testing

/// `userEvents` pages a user's own stream and the streams of their chains, like the global feed.
@Suite("A user's events, paged while they change")
struct UserEventsPagingTests {
    typealias H = LedgerHarness

    /// 30 purchases, each a fact and its link.
    static let expected = 60

    /// A chain moved to another user leaves the previous owner's events, whatever the page size:
    /// the link on alice's stream named it, and paging with 1000 gave its renewals under bob too,
    /// while paging one by one gave neither those nor her own.
    @Test(arguments: TestDatabases.dialects)
    func aChainMovedAwayLeavesThePreviousOwnersEventsWhateverThePageSize(_ dialect: StorageDialect) async throws {
        try await H.run(dialect: dialect) { h in
            try await h.submit(user: "alice", H.transaction("1000", purchased: 0, expires: 30), at: 0)
            try await h.notify(.didRenew, transaction: H.transaction("1001", purchased: 30, expires: 60), at: 30)
            try await h.submit(user: "bob", H.transaction("1001", purchased: 30, expires: 60, signed: 31), at: 31)
            try await h.notify(.didRenew, transaction: H.transaction("1002", purchased: 60, expires: 90), at: 60)
            try await h.notify(.didRenew, transaction: H.transaction("1003", purchased: 90, expires: 120), at: 90)

            func paged(_ user: String, by limit: Int) async throws -> [RecordedEvent] {
                var events: [RecordedEvent] = []
                var after: EventCursor?
                while true {
                    let page = try await h.ledger.userEvents(userId: user, after: after, limit: limit)
                    guard !page.events.isEmpty else { return events }
                    events += page.events
                    after = page.next
                }
            }
            // PostgreSQL shows an event once no older transaction is open (other tests run alongside):
            // wait until each whole list holds all it should (alice her link and unlink, bob his link
            // and the chain's five facts) before paging.
            for (user, count) in [("alice", 2), ("bob", 6)] {
                let deadline = ContinuousClock.now + .seconds(30)
                var whole: [UUID] = []
                while whole.count < count, ContinuousClock.now < deadline {
                    whole = try await h.ledger.userEvents(userId: user, after: nil, limit: 1000).events.map(\.eventID)
                }
                #expect(whole.count == count, "\(user)")
                for limit in [1, 2, 3] {
                    #expect(try await paged(user, by: limit).map(\.eventID) == whole, "\(user) by \(limit)")
                }
            }
            let alice = try await h.ledger.userEvents(userId: "alice", after: nil, limit: 1000).events
            #expect(alice.map(\.type) == [LedgerEventType.userLinked, LedgerEventType.userUnlinked])
            let bob = try await h.ledger.userEvents(userId: "bob", after: nil, limit: 1000).events
            #expect(bob.filter { $0.streamID == "subscription-1000" }.count == 5)
        }
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
                    // PostgreSQL holds events back while an older transaction anywhere is open (other
                    // tests run alongside), so the pager goes on until it has seen all 60 or 30 s pass;
                    // an event skipped for good keeps it short of 60.
                    var seen: [String] = []
                    var after = EventCursor.start
                    let deadline = ContinuousClock.now + .seconds(30)
                    while !(written.isSet && Set(seen).count >= Self.expected), ContinuousClock.now < deadline {
                        let page = try await h.ledger.userEvents(userId: "u1", after: after, limit: 1000)
                        seen += page.events.map { $0.eventID.lowercaseString }
                        after = page.next
                        if page.events.isEmpty { try await Task.sleep(for: .milliseconds(5)) }
                    }
                    return seen
                }
                return try await group.reduce(into: []) { $0 += $1 }
            }
            var full: [String] = []
            let deadline = ContinuousClock.now + .seconds(30)
            while full.count < Self.expected, ContinuousClock.now < deadline {
                full = try await h.ledger.userEvents(userId: "u1", after: nil, limit: 1000).events.map { $0.eventID.lowercaseString }
            }
            #expect(full.count == Self.expected)
            #expect(paged.count == Set(paged).count)
            let never = Set(full).subtracting(paged)
            #expect(never.isEmpty, "\(never.count) of \(full.count) events were never paged")
            #expect(Set(paged).isSubset(of: Set(full)))
        }
    }
}
