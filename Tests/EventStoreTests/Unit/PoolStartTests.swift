@testable import EventStore
import Synchronization
import Testing

/// The gate leases wait at until the store's `run()` has begun.
struct PoolStartTests {
    /// Whether `run` was entered, and what each waiter saw when it went on.
    private final class Observed: Sendable {
        let running = Mutex(false)
        let sawRunning = Mutex<[Bool]>([])
    }

    private func makeStart() -> PoolStart { PoolStart(on: PostgresEventStore.connectionExecutor) }

    /// Every waiter goes on only after `run` was entered, however many wait.
    @Test func everyWaiterGoesOnOnceRunHasBegun() async throws {
        let start = makeStart()
        let observed = Observed()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    try await start.wait()
                    let now = observed.running.withLock { $0 }
                    observed.sawRunning.withLock { $0.append(now) }
                }
            }
            // The waiters are waiting by now.
            try await Task.sleep(for: .milliseconds(50))
            #expect(observed.sawRunning.withLock { $0 }.isEmpty)
            await start.open {
                // Held before `run` is "entered": a waiter let through early would see false.
                let end = ContinuousClock.now + .milliseconds(20)
                while ContinuousClock.now < end {}
                observed.running.withLock { $0 = true }
            }
            try await group.waitForAll()
        }
        #expect(observed.sawRunning.withLock { $0 } == Array(repeating: true, count: 8))
        // Known open now: a later lease passes straight through.
        try await start.wait()
    }

    /// A lease arriving between the opening and `run`'s first suspension waits for that too: the
    /// gate is open, but no lease has yet seen that `run` began.
    @Test func aLeaseArrivingWhileRunIsBeingEnteredWaitsForIt() async throws {
        let start = makeStart()
        let observed = Observed()
        let opener = Task {
            await start.open {
                let end = ContinuousClock.now + .milliseconds(100)
                while ContinuousClock.now < end {}
                observed.running.withLock { $0 = true }
            }
        }
        // The opening job is holding its executor by now.
        try await Task.sleep(for: .milliseconds(30))
        try await start.wait()
        #expect(observed.running.withLock { $0 })
        await opener.value
    }

    /// A lease after the opening, before any lease confirmed it, still gets through.
    @Test func aWaitAfterTheOpeningReturns() async throws {
        let start = makeStart()
        await start.open {}
        try await start.wait()
        try await start.wait()
    }

    /// A lease whose deadline passed is cancelled: its wait ends, and the opening resumes only the others.
    @Test func aCancelledWaitThrowsAndLeavesTheOthersWaiting() async throws {
        let start = makeStart()
        let cancelled = Task { try await start.wait() }
        let waiting = Task { try await start.wait() }
        try await Task.sleep(for: .milliseconds(50))
        cancelled.cancel()
        await #expect(throws: CancellationError.self) { try await cancelled.value }
        await start.open {}
        try await waiting.value
    }

    @Test func aWaitInACancelledTaskThrowsWithoutWaiting() async throws {
        let start = makeStart()
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await start.wait()
        }
        await #expect(throws: CancellationError.self) { try await task.value }
    }
}
