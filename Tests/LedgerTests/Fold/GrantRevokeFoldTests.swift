import Ledger
import Testing

/// Revokes fold the same whatever order they are applied in: the earliest ends the grant and keeps
/// its reason, so a replay that meets two revokes in another order rebuilds the same user.
@Suite("Grant revokes in the fold")
struct GrantRevokeFoldTests {
    static let grant = ManualGrant(grantId: "g1", userId: "u1", entitlement: "pro", expiresAt: 5_000, reason: "support", at: 1_000)

    static func revoke(at: Int64, _ reason: String, grant: String = "g1") -> ManualGrant {
        ManualGrant(grantId: grant, userId: "u1", entitlement: "pro", expiresAt: nil, reason: reason, at: at)
    }

    static func folded(_ revokes: [ManualGrant]) -> UserState {
        var state = UserState(userId: "u1")
        state.grant(grant)
        for revoke in revokes { state.revoke(revoke) }
        return state
    }

    @Test func theEarliestRevokeEndsTheGrantAndKeepsItsReasonInEitherOrder() {
        let first = Self.revoke(at: 2_000, "wrong user")
        let later = Self.revoke(at: 3_000, "retry")
        let tied = Self.revoke(at: 2_000, "another")
        let expected = Self.folded([first])
        #expect(expected.grants["g1"]?.revokedAt == 2_000)
        #expect(expected.grants["g1"]?.revokeReason == "wrong user")
        for order in [[first, later], [later, first], [first, tied], [tied, first], [later, tied, first]] {
            let state = Self.folded(order)
            #expect(state.grants["g1"]?.revokedAt == 2_000)
            // On a tie of times the reason that sorts first is kept, so the order cannot choose.
            #expect(state.grants["g1"]?.revokeReason == (order.contains(tied) ? "another" : "wrong user"))
        }
        #expect(Self.folded([Self.revoke(at: 2_000, "x", grant: "g2")]) == Self.folded([]))
    }

    /// A document written before reasons were kept has the revoke's time but no reason; folding that
    /// revoke again (a rebuild reads it from the event) fills the reason in, and a later one does not.
    @Test func aDocumentWithoutTheReasonTakesItFromTheSameRevoke() {
        var state = UserState(userId: "u1")
        state.grant(Self.grant)
        state.grants["g1"]?.revokedAt = 2_000
        state.revoke(Self.revoke(at: 3_000, "later"))
        #expect(state.grants["g1"]?.revokeReason == nil)
        state.revoke(Self.revoke(at: 2_000, "wrong user"))
        #expect(state.grants["g1"]?.revokedAt == 2_000)
        #expect(state.grants["g1"]?.revokeReason == "wrong user")
    }

    /// Two reasons that differ only in their Unicode composition are told apart by their bytes, so
    /// the order the revokes arrive in cannot choose between them.
    @Test func tiedReasonsAreComparedByTheirBytes() {
        let composed = Self.revoke(at: 2_000, "caf\u{E9}")
        let decomposed = Self.revoke(at: 2_000, "cafe\u{301}")
        let one = Self.folded([composed, decomposed]).grants["g1"]?.revokeReason
        let other = Self.folded([decomposed, composed]).grants["g1"]?.revokeReason
        #expect(one.map { Array($0.utf8) } == other.map { Array($0.utf8) })
        #expect(one.map { Array($0.utf8) } == Array("cafe\u{301}".utf8))
    }
}
