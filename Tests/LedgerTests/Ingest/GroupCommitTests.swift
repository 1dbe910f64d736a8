import AppStore
import AppStoreTesting
import EventStore
import EventStoreTesting
import Foundation
import Ledger
import Testing

/// Concurrent ingests share transactions (group commit) and must come out as if recorded one by one.
@Suite("Group commit of concurrent ingests")
struct GroupCommitTests {
    typealias H = LedgerHarness

    /// A signed V2 notification body for a new purchase of chain `chain` by the token's user.
    static func purchase(_ h: LedgerHarness, chain: String, user: String) throws -> Data {
        let jws = try h.pki.signNotification(
            type: .subscribed, subtype: .initialBuy, bundleId: H.bundleId, environment: .sandbox,
            transaction: H.transaction(chain, original: chain, purchased: 0, expires: 30, token: user), signedDate: Day.apple(0)
        )
        return try TestPKI.notificationBody(signedPayload: jws)
    }

    /// Signed DID_RENEW bodies for months 1 to 12 of chain 1000, each carrying `token(month)`.
    static func monthlyRenewals(_ h: LedgerHarness, token: (Int) -> String?) throws -> [Data] {
        try (1...12).map { month in
            let day = Double(30 * month)
            let renewal = H.transaction("\(1000 + month)", purchased: day, expires: day + 30, token: token(month))
            let jws = try h.pki.signNotification(
                type: .didRenew, bundleId: H.bundleId, environment: .sandbox, transaction: renewal, signedDate: Day.apple(day)
            )
            return try TestPKI.notificationBody(signedPayload: jws)
        }
    }

    /// Ingests every body at once, in a shuffled order, so several share group-commit batches.
    static func ingestAtOnce(_ h: LedgerHarness, _ bodies: [Data]) async throws {
        try await withThrowingTaskGroup(of: IngestResult.self) { group in
            for body in bodies.shuffled() {
                group.addTask { try await h.ledger.ingestNotificationV2(body: body, context: IngestContext(source: "test")) }
            }
            try await group.waitForAll()
        }
    }

    /// 40 purchases at once: each is recorded with its link, every view is right, the hash chains are
    /// whole, and in PostgreSQL fewer transactions than notifications committed them.
    @Test(arguments: TestDatabases.dialects)
    func concurrentNotificationsEachLandAndShareTransactionsOnPostgreSQL(_ dialect: StorageDialect) async throws {
        try await H.run(dialect: dialect) { h in
            let bodies = try (0..<40).map { try Self.purchase(h, chain: "\(5000 + $0)", user: "user-\($0)") }
            let results = try await withThrowingTaskGroup(of: IngestResult.self) { group in
                for body in bodies {
                    group.addTask { try await h.ledger.ingestNotificationV2(body: body, context: IngestContext(source: "test")) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(results.allSatisfy { !$0.isDuplicate })
            #expect(Set(results.map(\.position)).count == 40)
            let log = try await readLog(h.store, atLeast: 80).events
            #expect(log.filter { $0.type == "apple.notification.v2" }.count == 40)
            #expect(log.filter { $0.type == "user.linked" }.count == 40)
            for index in 0..<40 {
                let view = try await h.ledger.entitlements(userId: "user-\(index)", at: Day.date(1))
                #expect(view.subscriptions.map(\.originalTransactionId) == ["\(5000 + index)"])
                #expect(view.entitlements.first?.active == true)
            }
            #expect(try await h.store.audit(progress: nil).isIntact)
            if dialect == .postgres {
                let transactions = Set(log.map(\.cursor.transaction))
                #expect(transactions.count < 40, "every notification had a transaction of its own")
            }
        }
    }

    /// Apple retries while the first delivery is still in flight: the same body many times at once,
    /// mixed with other notifications, is recorded once and every copy answers that one event.
    @Test(arguments: TestDatabases.dialects)
    func aBodyDeliveredManyTimesAtOnceIsRecordedOnce(_ dialect: StorageDialect) async throws {
        try await H.run(dialect: dialect) { h in
            let repeated = try Self.purchase(h, chain: "7000", user: "alice")
            let others = try (0..<10).map { try Self.purchase(h, chain: "\(7100 + $0)", user: "other-\($0)") }
            let results = try await withThrowingTaskGroup(of: (Bool, IngestResult).self) { group in
                for index in 0..<20 {
                    let body = index.isMultiple(of: 2) ? repeated : others[index / 2]
                    group.addTask {
                        (body == repeated, try await h.ledger.ingestNotificationV2(body: body, context: IngestContext(source: "test")))
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let copies = results.filter(\.0).map(\.1)
            #expect(copies.count == 10)
            #expect(copies.filter { !$0.isDuplicate }.count == 1)
            #expect(Set(copies.map(\.eventID)).count == 1)
            #expect(Set(copies.map(\.position)).count == 1)
            #expect(results.filter { !$0.0 }.allSatisfy { !$0.1.isDuplicate })
            #expect(try await h.store.eventCount() == 22)
            #expect(try await h.store.readStream("user-alice").count == 1)
            #expect(try await h.entitlement("pro", of: "alice", at: 1)?.active == true)
        }
    }

    /// Renewals of one chain arriving together (so several share a transaction and a stream): the
    /// chain ends at the latest expiry, as it would one by one, and its stream is a whole hash chain.
    @Test(arguments: TestDatabases.dialects)
    func renewalsOfOneChainAtOnceLeaveTheNewestState(_ dialect: StorageDialect) async throws {
        try await H.run(dialect: dialect) { h in
            try await h.notify(.subscribed, .initialBuy, transaction: H.transaction("1000", purchased: 0, expires: 30, token: "alice"), at: 0)
            try await Self.ingestAtOnce(h, try Self.monthlyRenewals(h) { _ in nil })
            #expect(try await h.store.readStream("subscription-1000").map(\.streamVersion) == Array(1...13))
            #expect(try await h.chain(at: 361)?.expiresAt == Day.date(390))
            #expect(try await h.chain(at: 100)?.expiresAt == Day.date(120))
            #expect(try await h.entitlement("pro", of: "alice", at: 389)?.active == true)
            #expect(try await h.store.audit(progress: nil).isIntact)
        }
    }

    /// Renewals of one chain arriving together, the first half carrying the first owner's token and
    /// the newer half a new one: the new token claims once and the old one never again, in whatever
    /// order and batches they land, since each fact reads the chain as the earlier facts of its batch
    /// left it (once one of bob's renewals is folded, every one of alice's is older).
    @Test(arguments: TestDatabases.dialects)
    func renewalsAtOnceCarryingTwoTokensMoveTheChainOnce(_ dialect: StorageDialect) async throws {
        try await H.run(dialect: dialect, policy: .transfer) { h in
            try await h.notify(.subscribed, .initialBuy, transaction: H.transaction("1000", purchased: 0, expires: 30, token: "alice"), at: 0)
            try await Self.ingestAtOnce(h, try Self.monthlyRenewals(h) { $0 > 6 ? "bob" : "alice" })
            #expect(try await h.store.readStream("user-alice").map(\.type) == ["user.linked", "user.unlinked"])
            let bob = try await h.store.readStream("user-bob")
            #expect(bob.map(\.type) == ["user.linked"])
            #expect(try bob.map { try JSONDecoder().decode(UserLink.self, from: $0.data).outcome } == [.transferred])
            #expect(try await h.entitlement("pro", of: "bob", at: 361)?.expiresAt == Day.date(390))
            #expect(try await h.ledger.entitlements(userId: "alice", at: Day.date(361)).subscriptions.isEmpty)
        }
    }

    /// Renewals of one chain arriving together with alternating tokens (each month another user's):
    /// however they are ordered and batched, the chain ends with the newest renewal's token, each
    /// user's stream alternates links and unlinks, ending as the chain's owner or not, and folding
    /// the log again gives the same read models.
    @Test(arguments: TestDatabases.dialects)
    func renewalsAtOnceWithAlternatingTokensEndWithTheNewestRenewalsToken(_ dialect: StorageDialect) async throws {
        try await H.run(dialect: dialect, policy: .transfer) { h in
            try await h.notify(.subscribed, .initialBuy, transaction: H.transaction("1000", purchased: 0, expires: 30, token: "alice"), at: 0)
            try await Self.ingestAtOnce(h, try Self.monthlyRenewals(h) { $0.isMultiple(of: 2) ? "bob" : "alice" })
            #expect(try await h.entitlement("pro", of: "bob", at: 361)?.expiresAt == Day.date(390))
            #expect(try await h.ledger.entitlements(userId: "alice", at: Day.date(361)).subscriptions.isEmpty)
            for (user, owns) in [("alice", false), ("bob", true)] {
                let types = try await h.store.readStream("user-\(user)").map(\.type)
                let alternating = types.enumerated().allSatisfy { $0.element == ($0.offset.isMultiple(of: 2) ? "user.linked" : "user.unlinked") }
                #expect(alternating && types.count.isMultiple(of: 2) != owns && !types.isEmpty, "\(user): \(types)")
            }
            let count = try await h.store.eventCount()
            _ = try await readLog(h.store, atLeast: count)
            let check = try await LedgerReplayer(store: h.store).check()
            #expect(check.differences.isEmpty, "\(check.differences)")
        }
    }

    /// Notifications naming different users for the same chains arrive together, so claims on one
    /// chain are decided within one transaction: each chain ends with the user of its newest
    /// transaction's token, every other user either never claimed it (its notification came after a
    /// newer one) or has its link and unlink, and folding the log again gives the same read models.
    @Test(arguments: TestDatabases.dialects)
    func conflictingTokenClaimsInOneBatchEndWithOneOwnerAndReplayAgrees(_ dialect: StorageDialect) async throws {
        try await H.run(dialect: dialect, policy: .transfer) { h in
            var bodies: [Data] = []
            for chain in ["8000", "8001", "8002"] {
                for (index, user) in ["ann", "ben", "cat", "dan"].enumerated() {
                    let transaction = H.transaction("\(chain)\(index)", original: chain, purchased: Double(index), expires: 30, token: "\(user)-\(chain)")
                    let jws = try h.pki.signNotification(
                        type: .didRenew, bundleId: H.bundleId, environment: .sandbox, transaction: transaction, signedDate: Day.apple(Double(index))
                    )
                    bodies.append(try TestPKI.notificationBody(signedPayload: jws))
                }
            }
            try await withThrowingTaskGroup(of: IngestResult.self) { group in
                for body in bodies.shuffled() {
                    group.addTask { try await h.ledger.ingestNotificationV2(body: body, context: IngestContext(source: "test")) }
                }
                try await group.waitForAll()
            }
            for chain in ["8000", "8001", "8002"] {
                let users = ["ann", "ben", "cat", "dan"].map { "\($0)-\(chain)" }
                var owners: [String] = []
                for user in users {
                    let types = try await h.store.readStream("user-\(user)").map(\.type)
                    let subscriptions = try await h.ledger.entitlements(userId: user, at: Day.date(5)).subscriptions
                    if types == ["user.linked"] {
                        owners.append(user)
                        #expect(subscriptions.map(\.originalTransactionId) == [chain])
                    } else {
                        #expect(types == [] || types == ["user.linked", "user.unlinked"], "\(user): \(types)")
                        #expect(subscriptions.isEmpty)
                    }
                }
                #expect(owners == ["dan-\(chain)"], "chain \(chain) owners: \(owners)")
            }
            // Replay reads the log as catch-up readers do, so wait until every event is visible there
            // (a transaction of another test on the same server can hold the gate for a moment).
            let count = try await h.store.eventCount()
            _ = try await readLog(h.store, atLeast: count)
            let check = try await LedgerReplayer(store: h.store).check()
            #expect(check.events == count)
            #expect(check.differences.isEmpty, "\(check.differences)")
            #expect(try await h.store.audit(progress: nil).isIntact)
        }
    }
}
