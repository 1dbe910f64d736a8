@testable import EventStore
import Synchronization
import Testing

/// The hand-over between the task that waits in the pool and the task that uses the connection,
/// in every order the two sides and the deadline can arrive. (A wait that never comes would hang on
/// the `async let`, so the suite has a time limit.)
@Suite(.timeLimit(.minutes(1)))
struct LeaseHandoffTests {
    struct Deadline: Error, Equatable {}

    /// Returns once a user waits on `handoff`, so what the test does next meets a waiting user.
    static func waitUntilAwaited(_ handoff: LeaseHandoff<Int>) async throws {
        try await waitUntil("the user's wait") { handoff.isAwaited }
    }

    @Test func aConnectionDeliveredBeforeTheUserAsksIsKeptForIt() async throws {
        let handoff = LeaseHandoff<Int>()
        #expect(handoff.deliver(7))
        #expect(try await handoff.connection() == 7)
    }

    @Test func aUserWaitingIsResumedByTheDelivery() async throws {
        let handoff = LeaseHandoff<Int>()
        async let connection = handoff.connection()
        // Deliver only once the user waits (a delivery first is the case above).
        try await Self.waitUntilAwaited(handoff)
        #expect(handoff.deliver(8))
        #expect(try await connection == 8)
    }

    @Test func aConnectionArrivingAfterTheDeadlineIsRefused() async throws {
        let handoff = LeaseHandoff<Int>()
        handoff.fail(Deadline())
        #expect(!handoff.deliver(9))
        await #expect(throws: Deadline.self) { try await handoff.connection() }
    }

    @Test func theDeadlineAfterADeliveryChangesNothing() async throws {
        let handoff = LeaseHandoff<Int>()
        #expect(handoff.deliver(10))
        handoff.fail(Deadline())
        #expect(try await handoff.connection() == 10)
    }

    @Test func aWaitingUserGetsTheDeadlineError() async throws {
        let handoff = LeaseHandoff<Int>()
        async let failure: (any Error)? = {
            do { _ = try await handoff.connection() } catch { return error }
            return nil
        }()
        try await Self.waitUntilAwaited(handoff)
        handoff.fail(Deadline())
        #expect(!handoff.deliver(11))
        #expect(await failure is Deadline)
    }

    @Test func theLeaseIsHeldUntilReleasedInEitherOrder() async {
        let early = LeaseHandoff<Int>()
        early.release()
        await early.waitForRelease()

        let late = LeaseHandoff<Int>()
        let returned = Mutex(false)
        async let released: Void = { await late.waitForRelease(); returned.withLock { $0 = true } }()
        try? await Task.sleep(for: .milliseconds(50))
        #expect(!returned.withLock { $0 }, "the lease ended before it was released")
        late.release()
        await released
        #expect(returned.withLock { $0 })
    }
}
