import AppStoreTesting
import AppStore
import EventStore
import EventStoreTesting
import Foundation
import Ledger
import Testing

@Suite("Links between users and subscription chains")
struct LinkPolicyTests {
    typealias H = LedgerHarness

    @Test func transferPolicyMovesTheChainToTheLatestClaimant() async throws {
        try await H.run(policy: .transfer) { h in
            try await h.submit(user: "alice", H.transaction("1000", purchased: 0, expires: 30), at: 0)
            try await h.submit(user: "bob", H.transaction("1000", purchased: 0, expires: 30), at: 1)
            #expect(try await h.entitlement("pro", of: "bob", at: 2)?.active == true)
            #expect(try await h.ledger.entitlements(userId: "alice", at: Day.date(2)).subscriptions.isEmpty)
            // What the ledger knew before the transfer still shows alice's subscription.
            let before = try await h.ledger.entitlements(userId: "alice", asOf: Day.date(0.5))
            #expect(before.subscriptions.map(\.originalTransactionId) == ["1000"])
            #expect(before.entitlements.first?.active == true)
            let aliceEvents = try await h.store.readStream("user-alice").map(\.type)
            #expect(aliceEvents == ["user.linked", "user.unlinked"])
            let bobLink = try #require(try await h.store.readStream("user-bob").first)
            let decoded = try JSONDecoder().decode(UserLink.self, from: bobLink.data)
            #expect(decoded.outcome == .transferred)
            #expect(decoded.previousUserId == "alice")
        }
    }

    /// A client submission that takes a chain from another user records the link and the previous
    /// owner's unlink in one transaction: no moment where both or neither own it. With the database
    /// refusing the unlink, nothing of the submission is kept (on SQLite every cursor's transaction
    /// is 0, so the comparison below shows it only on PostgreSQL).
    @Test(arguments: TestDatabases.dialects)
    func aSubmittedTransferCommitsTheLinkAndTheUnlinkTogether(_ dialect: StorageDialect) async throws {
        try await H.run(dialect: dialect, policy: .transfer) { h in
            try await h.submit(user: "alice", H.transaction("1000", purchased: 0, expires: 30), at: 0)
            try await h.fixture.refuseInserts(ofType: "user.unlinked")
            // A renewal of the chain: its fact, bob's link and alice's unlink are all new.
            await #expect {
                try await h.submit(user: "bob", H.transaction("1001", original: "1000", purchased: 30, expires: 60), at: 31)
            } throws: { String(reflecting: $0).contains("this test refuses") }
            #expect(try await h.store.eventCount() == 2)
            #expect(try await h.store.readStream("user-bob").isEmpty)
            try await h.fixture.stopRefusingInserts()
            try await h.submit(user: "bob", H.transaction("1000", purchased: 0, expires: 30), at: 1)
            let log = try await readLog(h.store, atLeast: 4).events
            let link = try #require(log.first { $0.type == "user.linked" && $0.streamID == "user-bob" })
            let unlink = try #require(log.first { $0.type == "user.unlinked" })
            #expect(unlink.streamID == "user-alice")
            #expect(link.cursor.transaction == unlink.cursor.transaction)
            #expect(unlink.dedupeKey == "unlink:\(link.eventID.lowercaseString)")
        }
    }

    /// A client's submission and the link it asks for are one transaction, as a notification and its
    /// token's link are: a 200 never leaves the purchase recorded without its owner. With the
    /// database refusing the link, the fact is not kept either.
    @Test(arguments: TestDatabases.dialects)
    func aSubmissionRecordsItsFactAndItsLinkInOneTransaction(_ dialect: StorageDialect) async throws {
        try await H.run(dialect: dialect) { h in
            try await h.fixture.refuseInserts(ofType: "user.linked")
            await #expect {
                try await h.submit(user: "alice", H.transaction("1000", purchased: 0, expires: 30), at: 0)
            } throws: { String(reflecting: $0).contains("this test refuses") }
            #expect(try await h.store.eventCount() == 0)
            try await h.fixture.stopRefusingInserts()
            try await h.submit(user: "alice", H.transaction("1000", purchased: 0, expires: 30), at: 0)
            let log = try await readLog(h.store, atLeast: 2).events
            #expect(log.map(\.type) == ["apple.transaction", "user.linked"])
            #expect(log.first?.cursor.transaction == log.last?.cursor.transaction)
            #expect(log.last?.streamID == "user-alice")
        }
    }

    @Test func keepPolicyRecordsAndRefusesALaterClaim() async throws {
        try await H.run(policy: .keep) { h in
            try await h.submit(user: "alice", H.transaction("1000", purchased: 0, expires: 30), at: 0)
            do {
                try await h.submit(user: "bob", H.transaction("1000", purchased: 0, expires: 30), at: 1)
                Issue.record("a second claim was accepted under keep")
            } catch let error as LedgerError {
                #expect(error.code == .linkConflict)
            }
            #expect(try await h.entitlement("pro", of: "alice", at: 2)?.active == true)
            #expect(try await h.ledger.entitlements(userId: "bob", at: Day.date(2)).entitlements.isEmpty)
            let rejected = try #require(try await h.store.readStream("user-bob").first)
            #expect(try JSONDecoder().decode(UserLink.self, from: rejected.data).outcome == .rejected)
        }
    }

    /// `link` decides under the owner document's lock like a fact's claims: linking again records
    /// nothing, and under `keep` another user's claim is recorded as rejected and refused.
    @Test(arguments: TestDatabases.dialects)
    func aDirectLinkIsDecidedLikeASubmissionsClaim(_ dialect: StorageDialect) async throws {
        try await H.run(dialect: dialect, policy: .keep) { h in
            let context = IngestContext(source: "test")
            #expect(try await h.ledger.link(userId: "alice", originalTransactionId: "1000", source: "submit", context: context)?.outcome == .linked)
            #expect(try await h.ledger.link(userId: "alice", originalTransactionId: "1000", source: "submit", context: context) == nil)
            do {
                _ = try await h.ledger.link(userId: "bob", originalTransactionId: "1000", source: "submit", context: context)
                Issue.record("bob's claim was accepted under keep")
            } catch let error as LedgerError {
                #expect(error.code == .linkConflict)
            }
            #expect(try await h.store.readStream("user-alice").map(\.type) == ["user.linked"])
            let refused = try #require(try await h.store.readStream("user-bob").first)
            #expect(try JSONDecoder().decode(UserLink.self, from: refused.data).outcome == .rejected)
        }
    }

    @Test func appAccountTokenClaimsTheChainForThatUser() async throws {
        try await H.run { h in
            let token = "6f0c2d4e-3f0b-4a59-9d7e-2a1b3c4d5e6f"
            try await h.notify(.subscribed, .initialBuy, transaction: H.transaction("1000", purchased: 0, expires: 30, token: token.uppercased()), at: 0)
            let view = try await h.ledger.entitlements(userId: token, at: Day.date(1))
            #expect(view.entitlements.first?.active == true)
            let link = try #require(try await h.store.readStream("user-\(token)").first)
            #expect(try JSONDecoder().decode(UserLink.self, from: link.data).source == "app_account_token")
            // A renewal with the same token does not record the claim again.
            try await h.notify(.didRenew, transaction: H.transaction("1001", purchased: 30, expires: 60, token: token), at: 30)
            #expect(try await h.store.readStream("user-\(token)").count == 1)
        }
    }

    /// The notification and the link its token implies are one transaction: same transaction id
    /// in PostgreSQL, and a new token on the chain transfers it under `transfer`.
    @Test(arguments: TestDatabases.dialects)
    func aTokenClaimCommitsWithItsNotificationAndTransfersUnderTransfer(_ dialect: StorageDialect) async throws {
        try await H.run(dialect: dialect, policy: .transfer) { h in
            let first = try await h.notify(.subscribed, .initialBuy, transaction: H.transaction("1000", purchased: 0, expires: 30, token: "alice"), at: 0)
            let log = try await readLog(h.store, atLeast: 2).events
            #expect(log.map(\.type) == ["apple.notification.v2", "user.linked"])
            #expect(log[0].position == first.position)
            #expect(log[0].cursor.transaction == log[1].cursor.transaction)

            try await h.notify(.didRenew, transaction: H.transaction("1001", purchased: 30, expires: 60, token: "bob"), at: 30)
            #expect(try await h.store.readStream("user-alice").map(\.type) == ["user.linked", "user.unlinked"])
            let bobLink = try #require(try await h.store.readStream("user-bob").first)
            let decoded = try JSONDecoder().decode(UserLink.self, from: bobLink.data)
            #expect(decoded.outcome == .transferred)
            #expect(decoded.previousUserId == "alice")
            #expect(decoded.source == "app_account_token")
            #expect(try await h.entitlement("pro", of: "bob", at: 31)?.active == true)
            #expect(try await h.ledger.entitlements(userId: "alice", at: Day.date(31)).subscriptions.isEmpty)
        }
    }

    /// Under `keep`, a token naming another user is recorded as rejected, and the notification itself
    /// is still recorded and answered: Apple's fact does not depend on our linking policy.
    @Test(arguments: TestDatabases.dialects)
    func aRefusedTokenClaimIsRecordedAndTheNotificationStillLands(_ dialect: StorageDialect) async throws {
        try await H.run(dialect: dialect, policy: .keep) { h in
            try await h.submit(user: "alice", H.transaction("1000", purchased: 0, expires: 30), at: 0)
            h.clock.set(Day.date(30))
            let jws = try h.pki.signNotification(
                type: .didRenew, bundleId: H.bundleId, environment: .sandbox,
                transaction: H.transaction("1001", purchased: 30, expires: 60, token: "mallory"), signedDate: Day.apple(30)
            )
            let body = try TestPKI.notificationBody(signedPayload: jws)
            let renewal = try await h.ledger.ingestNotificationV2(body: body, context: IngestContext(source: "test"))
            #expect(!renewal.isDuplicate)
            let refused = try #require(try await h.store.readStream("user-mallory").first)
            #expect(try JSONDecoder().decode(UserLink.self, from: refused.data).outcome == .rejected)
            #expect(try await h.entitlement("pro", of: "alice", at: 31)?.expiresAt == Day.date(60))
            #expect(try await h.ledger.entitlements(userId: "mallory", at: Day.date(31)).entitlements.isEmpty)
            // Apple retries the same body: a duplicate, and no second claim.
            let retry = try await h.ledger.ingestNotificationV2(body: body, context: IngestContext(source: "test"))
            #expect(retry.isDuplicate)
            #expect(retry.position == renewal.position)
            #expect(try await h.store.readStream("user-mallory").count == 1)
        }
    }

    /// A token claims its chain once. After a submission moved the chain to another user, renewals
    /// still carrying the first token leave it there, instead of moving it back on every renewal.
    @Test(arguments: TestDatabases.dialects)
    func aRenewalCarryingTheChainsTokenDoesNotTakeBackAChainASubmissionMoved(_ dialect: StorageDialect) async throws {
        try await H.run(dialect: dialect, policy: .transfer) { h in
            let token = "6f0c2d4e-3f0b-4a59-9d7e-2a1b3c4d5e6f"
            try await h.notify(.subscribed, .initialBuy, transaction: H.transaction("1000", purchased: 0, expires: 30, token: token), at: 0)
            // Bob's backend submits the same purchase, which still carries the token.
            let bob = try await h.submit(user: "bob", H.transaction("1000", purchased: 0, expires: 30, token: token), at: 1)
            #expect(bob.subscriptions.map(\.originalTransactionId) == ["1000"])
            try await h.notify(.didRenew, transaction: H.transaction("1001", purchased: 30, expires: 60, token: token), at: 30)
            try await h.notify(.didRenew, transaction: H.transaction("1002", purchased: 60, expires: 90, token: token), at: 60)
            #expect(try await h.entitlement("pro", of: "bob", at: 61)?.expiresAt == Day.date(90))
            #expect(try await h.ledger.entitlements(userId: token, at: Day.date(61)).subscriptions.isEmpty)
            #expect(try await h.store.readStream("user-\(token)").map(\.type) == ["user.linked", "user.unlinked"])
            #expect(try await h.store.readStream("user-bob").map(\.type) == ["user.linked"])
        }
    }

    /// A submission links the chain to the user it names, whatever `appAccountToken` the transaction
    /// carries (another user's, or the submitter's own id in another case): one answer, one owner.
    @Test(arguments: TestDatabases.dialects)
    func aSubmissionLinksTheSubmitterWhateverTokenTheTransactionCarries(_ dialect: StorageDialect) async throws {
        try await H.run(dialect: dialect, policy: .transfer) { h in
            let other = "0e4b8a36-58a4-4f43-8c4c-5c3d2e1f0a9b"
            let bob = try await h.submit(user: "bob", H.transaction("1000", purchased: 0, expires: 30, token: other), at: 0)
            #expect(bob.subscriptions.map(\.originalTransactionId) == ["1000"])
            #expect(try await h.store.readStream("user-\(other)").isEmpty)
            let upper = "469E7EB9-2F6A-4C8B-9D1E-3A5B7C9D0E1F"
            let own = try await h.submit(user: upper, H.transaction("2000", original: "2000", purchased: 0, expires: 30, token: upper), at: 1)
            #expect(own.subscriptions.map(\.originalTransactionId) == ["2000"])
            #expect(try await h.store.readStream("user-\(upper.lowercased())").isEmpty)
            // Apple's later notification about the chain carries the token the chain already had.
            try await h.notify(.didRenew, transaction: H.transaction("1001", purchased: 30, expires: 60, token: other), at: 30)
            #expect(try await h.entitlement("pro", of: "bob", at: 31)?.expiresAt == Day.date(60))
            #expect(try await h.store.readStream("user-\(other)").isEmpty)
        }
    }

    /// Under `keep`, a token naming another user is refused once, not again with every renewal.
    @Test(arguments: TestDatabases.dialects)
    func underKeepATokenIsRefusedOnceNotOnEveryRenewal(_ dialect: StorageDialect) async throws {
        try await H.run(dialect: dialect, policy: .keep) { h in
            try await h.submit(user: "alice", H.transaction("1000", purchased: 0, expires: 30), at: 0)
            for (index, id) in ["1001", "1002", "1003"].enumerated() {
                let day = Double(30 * (index + 1))
                try await h.notify(.didRenew, transaction: H.transaction(id, purchased: day, expires: day + 30, token: "mallory"), at: day)
            }
            let refused = try await h.store.readStream("user-mallory")
            #expect(refused.count == 1)
            #expect(try refused.map { try JSONDecoder().decode(UserLink.self, from: $0.data).outcome } == [.rejected])
            #expect(try await h.entitlement("pro", of: "alice", at: 91)?.expiresAt == Day.date(120))
        }
    }

    /// The chain's newest transaction carries bob's token. Alice's notification about the older
    /// transaction reaching the ledger late (Apple's retry after an outage) leaves the chain with bob,
    /// and records nothing on alice's stream: the same end as when it came first.
    @Test(arguments: TestDatabases.dialects)
    func aLateNotificationAboutAnOlderTransactionDoesNotMoveTheChainBack(_ dialect: StorageDialect) async throws {
        for late in [false, true] {
            try await H.run(dialect: dialect, policy: .transfer) { h in
                let alice = H.transaction("1000", purchased: 0, expires: 30, token: "alice")
                let bob = H.transaction("1001", purchased: 30, expires: 60, token: "bob")
                let order = late ? [(bob, NotificationType.didRenew), (alice, .subscribed)] : [(alice, .subscribed), (bob, .didRenew)]
                for (index, (transaction, type)) in order.enumerated() {
                    try await h.notify(type, transaction: transaction, at: 31 + Double(index))
                }
                #expect(try await h.ledger.entitlements(userId: "bob", at: Day.date(33)).subscriptions.map(\.originalTransactionId) == ["1000"])
                #expect(try await h.ledger.entitlements(userId: "alice", at: Day.date(33)).subscriptions.isEmpty)
                let aliceEvents = try await h.store.readStream("user-alice").map(\.type)
                #expect(aliceEvents == (late ? [] : ["user.linked", "user.unlinked"]), "alice's notification late: \(late)")
                let bobLink = try #require(try await h.store.readStream("user-bob").first)
                #expect(try JSONDecoder().decode(UserLink.self, from: bobLink.data).outcome == (late ? .linked : .transferred))
            }
        }
    }

    /// Under `keep` the first claim keeps the chain, but a late notification about an older
    /// transaction is not a claim at all: nothing is refused on its token's stream.
    @Test func underKeepALateNotificationAboutAnOlderTransactionIsNoClaim() async throws {
        try await H.run(policy: .keep) { h in
            try await h.notify(.didRenew, transaction: H.transaction("1001", purchased: 30, expires: 60, token: "bob"), at: 31)
            try await h.notify(.subscribed, transaction: H.transaction("1000", purchased: 0, expires: 30, token: "alice"), at: 32)
            #expect(try await h.store.readStream("user-alice").isEmpty)
            #expect(try await h.entitlement("pro", of: "bob", at: 33)?.expiresAt == Day.date(60))
        }
    }

    /// Whatever order Apple's notifications arrive in, the chain ends with the token of its newest
    /// transaction, here one that returns after another user's (alice resubscribes on her account).
    @Test(arguments: Self.permutations(of: [0, 1, 2, 3]))
    func theChainEndsWithItsNewestTransactionsTokenInAnyArrivalOrder(order: [Int]) async throws {
        let tokens = ["alice", "bob", "carol", "alice"]
        try await H.run(policy: .transfer) { h in
            for (arrival, index) in order.enumerated() {
                let day = Double(30 * index)
                let transaction = H.transaction(String(1000 + index), purchased: day, expires: day + 30, token: tokens[index])
                try await h.notify(index == 0 ? .subscribed : .didRenew, transaction: transaction, at: 120 + Double(arrival))
            }
            for user in Set(tokens) {
                let chains = try await h.ledger.entitlements(userId: user, at: Day.date(125)).subscriptions.map(\.originalTransactionId)
                #expect(chains == (user == "alice" ? ["1000"] : []), "\(user) after arrival order \(order)")
            }
        }
    }

    /// "Newest" is by purchase date and transaction id only: a later observation marking the newest
    /// transaction upgraded (which changes which transaction governs) does not hand the chain to
    /// another token in some arrival orders and not in others.
    @Test(arguments: Self.permutations(of: [0, 1, 2]))
    func aLaterObservationOfTheNewestTransactionDoesNotChangeWhichTokenOwns(order: [Int]) async throws {
        let notifications = [
            H.transaction("1002", purchased: 10, expires: 40, signed: 10, token: "alice"),
            H.transaction("1001", purchased: 10, expires: 40, signed: 11, token: "bob"),
            H.transaction("1002", purchased: 10, expires: 40, signed: 12, upgraded: true, token: "alice"),
        ]
        try await H.run(policy: .transfer) { h in
            for (arrival, index) in order.enumerated() {
                try await h.notify(.didRenew, transaction: notifications[index], at: 20 + Double(arrival))
            }
            #expect(try await h.ledger.entitlements(userId: "alice", at: Day.date(25)).subscriptions.map(\.originalTransactionId) == ["1000"], "\(order)")
            #expect(try await h.ledger.entitlements(userId: "bob", at: Day.date(25)).subscriptions.isEmpty, "\(order)")
        }
    }

    static func permutations(of items: [Int]) -> [[Int]] {
        guard let first = items.first else { return [[]] }
        return permutations(of: Array(items.dropFirst())).flatMap { rest in
            (0...rest.count).map { position in
                var order = rest
                order.insert(first, at: position)
                return order
            }
        }
    }

    /// A stream can hold a later-stamped event before an earlier-stamped one (`recorded_at` is read
    /// at a transaction's first append, and two writers may create one stream at once): as_of
    /// filters each stream by time instead of stopping at the first later event, which kept a chain
    /// with its previous owner after the unlink.
    @Test func asOfFiltersEachStreamByTimeRatherThanStoppingAtTheFirstLaterEvent() async throws {
        try await H.run(policy: .transfer) { h in
            try await h.submit(user: "alice", H.transaction("1000", purchased: 0, expires: 30), at: 1)
            h.clock.set(Day.date(10))
            _ = try await h.ledger.grant(userId: "alice", entitlement: "pro", expiresAt: Day.date(20), reason: "support", context: .init(source: "test"))
            // Recorded at day 5, after the grant recorded at day 10 on alice's stream.
            try await h.submit(user: "bob", H.transaction("1000", purchased: 0, expires: 30), at: 5)
            #expect(try await h.store.readStream("user-alice").map(\.type) == ["user.linked", "entitlement.granted", "user.unlinked"])
            let alice = try await h.ledger.entitlements(userId: "alice", asOf: Day.date(7))
            #expect(alice.subscriptions.isEmpty)
            #expect(alice.entitlements.isEmpty)
            let bob = try await h.ledger.entitlements(userId: "bob", asOf: Day.date(7))
            #expect(bob.subscriptions.map(\.originalTransactionId) == ["1000"])
        }
    }

    @Test func eventsBeforeTheLinkJoinTheUsersViewWhenTheLinkArrives() async throws {
        try await H.run { h in
            try await h.notify(.subscribed, .initialBuy, transaction: H.transaction("1000", purchased: 0, expires: 30), at: 0)
            try await h.notify(.didRenew, transaction: H.transaction("1001", purchased: 30, expires: 60), at: 30)
            #expect(try await h.ledger.entitlements(userId: "u1", at: Day.date(31)).entitlements.isEmpty)
            h.clock.set(Day.date(31))
            _ = try await h.ledger.link(userId: "u1", originalTransactionId: "1000", source: "submit", context: .init(source: "test"))
            let pro = try #require(try await h.entitlement("pro", of: "u1", at: 31))
            #expect(pro.active)
            #expect(pro.expiresAt == Day.date(60))
        }
    }

    @Test func asOfAnswersWhatTheLedgerKnewThen() async throws {
        try await H.run { h in
            try await h.submit(user: "u1", H.transaction("1000", purchased: 0, expires: 30), at: 0)
            try await h.notify(.refund, transaction: H.transaction("1000", purchased: 0, expires: 30, signed: 5, revoked: 5), at: 5)
            let before = try await h.ledger.entitlements(userId: "u1", asOf: Day.date(4))
            #expect(before.entitlements.first?.status == "active")
            #expect(before.asOf == Day.date(4))
            let after = try await h.ledger.entitlements(userId: "u1", asOf: Day.date(6))
            #expect(after.entitlements.first?.status == "refunded")
            let nothing = try await h.ledger.entitlements(userId: "u1", asOf: Day.date(-1))
            #expect(nothing.entitlements.isEmpty)
        }
    }
}
