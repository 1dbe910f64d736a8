@testable import EventStore
import NIOPosix
import Synchronization
import Testing

/// The gate leases wait at until the store's `run()` has begun. Each test has a loop of its own, so
/// its spins hold up no other test's pool.
@Suite(.timeLimit(.minutes(1)))
struct PoolStartTests {
    /// Whether `run` was entered, and what each waiter saw when it went on.
    private final class Observed: Sendable {
        let entered = Mutex(false)
        let leasing = Mutex(false)
        let running = Mutex(false)
        let sawRunning = Mutex<[Bool]>([])
    }

    private func withStart(_ body: (PoolStart) async throws -> Void) async throws {
        let loops = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        do {
            try await body(PoolStart(on: EventLoopTaskExecutor(eventLoop: loops.next())))
        } catch {
            try? await loops.shutdownGracefully()
            throw error
        }
        try await loops.shutdownGracefully()
    }

    /// Holds the loop the way a `run` that has not reached its first suspension does.
    private static func spin(for duration: Duration) {
        let end = ContinuousClock.now + duration
        while ContinuousClock.now < end {}
    }

    /// Every waiter goes on only after `run` was entered, however many wait.
    @Test func everyWaiterGoesOnOnceRunHasBegun() async throws {
        try await withStart { start in
            let observed = Observed()
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<8 {
                    group.addTask {
                        try await start.wait()
                        let now = observed.running.withLock { $0 }
                        observed.sawRunning.withLock { $0.append(now) }
                    }
                }
                // Open only once all eight wait (a lease after the opening is another test's case).
                try await waitUntil("eight waiting leases") { start.waitingCount == 8 }
                #expect(observed.sawRunning.withLock { $0 }.isEmpty)
                await start.open {
                    // A waiter let through before `run` is entered would see false.
                    Self.spin(for: .milliseconds(20))
                    observed.running.withLock { $0 = true }
                }
                try await group.waitForAll()
            }
            #expect(observed.sawRunning.withLock { $0 } == Array(repeating: true, count: 8))
            // Known open now: a later lease passes straight through.
            try await start.wait()
        }
    }

    /// A lease arriving between the opening and `run`'s first suspension waits for that too: the
    /// gate is open, but no lease has yet seen that `run` began.
    @Test func aLeaseArrivingWhileRunIsBeingEnteredWaitsForIt() async throws {
        try await withStart { start in
            let observed = Observed()
            let opener = Task {
                await start.open {
                    observed.entered.withLock { $0 = true }
                    // Holds the loop until the test leases (at most 10 s), then long enough for the
                    // lease's hop to queue behind this job: a fixed spin ran out first under CI's load.
                    let end = ContinuousClock.now + .seconds(10)
                    while !observed.leasing.withLock({ $0 }) && ContinuousClock.now < end {}
                    Self.spin(for: .milliseconds(200))
                    observed.running.withLock { $0 = true }
                }
            }
            // Lease only once the opening job holds its loop (before, the lease waits as a waiter,
            // the first test's case).
            try await waitUntil("the opening") { observed.entered.withLock { $0 } }
            observed.leasing.withLock { $0 = true }
            try await start.wait()
            #expect(observed.running.withLock { $0 })
            await opener.value
        }
    }

    /// A lease after the opening, before any lease confirmed it, still gets through.
    @Test func aWaitAfterTheOpeningReturns() async throws {
        try await withStart { start in
            await start.open {}
            try await start.wait()
            try await start.wait()
        }
    }

    /// A lease whose deadline passed is cancelled: its wait ends, the others go on waiting, and the
    /// opening resumes only them.
    @Test func aCancelledWaitThrowsAndLeavesTheOthersWaiting() async throws {
        try await withStart { start in
            let observed = Observed()
            let cancelled = Task { try await start.wait() }
            let waiting = Task {
                try await start.wait()
                observed.running.withLock { $0 = true }
            }
            // Cancel only once both wait (a lease cancelled before it waits is the next test's case).
            try await waitUntil("two waiting leases") { start.waitingCount == 2 }
            cancelled.cancel()
            await #expect(throws: CancellationError.self) { try await cancelled.value }
            #expect(start.waitingCount == 1)
            try await Task.sleep(for: .milliseconds(50))
            #expect(!observed.running.withLock { $0 }, "the cancellation let another waiter through")
            await start.open {}
            try await waiting.value
            #expect(observed.running.withLock { $0 })
        }
    }

    /// A lease in a task already cancelled throws at once rather than waiting for the opening.
    @Test func aWaitInACancelledTaskThrowsWithoutWaiting() async throws {
        try await withStart { start in
            let task = Task {
                withUnsafeCurrentTask { $0?.cancel() }
                try await start.wait()
            }
            await #expect(throws: CancellationError.self) { try await task.value }
        }
    }
}
