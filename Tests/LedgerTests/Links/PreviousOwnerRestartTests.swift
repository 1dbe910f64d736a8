import AppStoreTesting
import EventStore
import EventStoreTesting
import Foundation
import Ledger
import Testing

/// A write runs again to lock a chain's previous owner up front only for a claim that may move the
/// chain. A token's claim that will not (the renewal of a chain a submission moved to another user
/// than its token, a resent notification, a late one) made every such write roll back and lock the
/// owner it would never touch: under churn, 575 rollbacks for 145 transfers in a re-test.
@Suite("A write restarts only for a claim that may move the chain")
struct PreviousOwnerRestartTests {
    typealias H = LedgerHarness

    /// bob submitted chain 1000, whose transactions carry another user's token. Apple's renewal
    /// carries that token again, so it claims nothing, and must not wait for bob's stream.
    @Test(.enabled(if: TestDatabases.dialects.contains(.postgres)))
    func aRenewalKeepingTheTokenOfAMovedChainLeavesItsOwnerAlone() async throws {
        try await H.run(dialect: .postgres, policy: .transfer) { h in
            let other = "0e4b8a36-58a4-4f43-8c4c-5c3d2e1f0a9b"
            try await h.submit(user: "bob", H.transaction("1000", purchased: 0, expires: 30, token: other), at: 0)
            let raw = try #require(h.fixture.rawPostgres)
            let first = try await raw.withConnection { holder in
                let holderPID = try await LockWaiter.holder(holder, in: h.fixture)
                _ = try await holder.query("SELECT 1 FROM streams WHERE stream_id = 'user-bob' FOR UPDATE", logger: TestDatabases.logger)
                let first = try await withThrowingTaskGroup(of: String.self) { group in
                    group.addTask {
                        try await h.notify(.didRenew, transaction: H.transaction("1001", purchased: 30, expires: 60, token: other), at: 30)
                        return "recorded"
                    }
                    group.addTask {
                        try await LockWaiter.waitForWaiter(on: holderPID, raw: raw) ? "waited for bob's stream" : "neither"
                    }
                    let first = try await LockWaiter.releasing(holder) { try await group.next() ?? "neither" }
                    // Lets the renewal go on if it waited; ends the other watch if it did not.
                    _ = try await holder.query("ROLLBACK", logger: TestDatabases.logger)
                    group.cancelAll()
                    while let _ = try? await group.next() {}
                    return first
                }
                return first
            }
            #expect(first == "recorded")
            #expect(try await h.entitlement("pro", of: "bob", at: 31)?.expiresAt == Day.date(60))
            #expect(try await h.store.readStream("user-bob").map(\.type) == ["user.linked"])
            #expect(try await h.store.readStream("user-\(other)").isEmpty)
        }
    }
}
