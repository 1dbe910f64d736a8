import NIOCore
import NIOPosix
import Synchronization

/// Holds every lease back until the pool's `run()` has begun.
///
/// postgres-nio warns ("`PostgresClient.run()` hasn't been called yet") when a connection is leased
/// before the pool's `run()` has begun. A command starts `run()` in a child task and its first
/// statement in the parent, so which came first was a race, and offline commands sometimes printed
/// the warning.
///
/// The order is made on one event loop: `open(thenRun:)` opens the gate and enters `run()` in one
/// job there, and a lease that has not seen the gate confirmed open waits on that loop too, so it
/// goes on only once that job has reached `run()`'s first suspension (postgres-nio sets its flag
/// first thing in `run()`). The first lease through confirms it, and later ones pass without
/// leaving their executor. This relies on a nonisolated async closure running on the task's
/// preferred executor, which both sides check.
final class PoolStart: Sendable {
    private enum State {
        case waiting(next: Int, waiters: [Int: CheckedContinuation<Void, any Error>])
        case open
    }

    /// The loop the pools' `run()` work runs on: its own thread, not the connections' loop where
    /// batches run, so the pool's timers and connection set-up (a TLS context is built there) never
    /// hold a batch up. Shared by every store in the process and never shut down.
    static let poolLoop = EventLoopTaskExecutor(eventLoop: MultiThreadedEventLoopGroup(numberOfThreads: 1).next())

    private let state = Mutex(State.waiting(next: 0, waiters: [:]))
    /// Set once a lease got through on `executor` after the opening job: later leases need no hop.
    private let confirmed = Atomic(false)
    private let executor: EventLoopTaskExecutor

    /// A gate ordered on `executor`'s loop.
    init(on executor: EventLoopTaskExecutor = PoolStart.poolLoop) {
        self.executor = executor
    }

    /// How many leases wait for the opening now (tests use it to know a wait began).
    var waitingCount: Int {
        state.withLock { state in
            if case .waiting(_, let waiters) = state { return waiters.count }
            return 0
        }
    }

    /// Opens the gate and calls `run` in the same job, so no lease goes on before `run` has begun.
    /// Returns when `run` does.
    func open(thenRun run: @Sendable () async -> Void) async {
        await withTaskExecutorPreference(executor) {
            // The ordering holds only if this job is the loop's (see the type's comment).
            executor.eventLoop.preconditionInEventLoop()
            let waiters: [CheckedContinuation<Void, any Error>] = state.withLock { state in
                guard case .waiting(_, let waiters) = state else { return [] }
                state = .open
                return Array(waiters.values)
            }
            // Each resumes on the loop, so only after this job, in `run`, suspends.
            for waiter in waiters { waiter.resume() }
            await run()
        }
    }

    /// Returns once `run` has begun: at once when a lease already saw that. Throws
    /// `CancellationError` when the task is cancelled first (a lease whose deadline passed).
    func wait() async throws {
        if confirmed.load(ordering: .acquiring) { return }
        try await withTaskExecutorPreference(executor) {
            try await waitOnLoop()
            // On the loop again: the opening job is past its synchronous start.
            executor.eventLoop.preconditionInEventLoop()
            confirmed.store(true, ordering: .releasing)
        }
    }

    private func waitOnLoop() async throws {
        executor.eventLoop.preconditionInEventLoop()
        let id: Int? = state.withLock { state in
            guard case .waiting(let next, let waiters) = state else { return nil }
            state = .waiting(next: next + 1, waiters: waiters)
            return next
        }
        // Open already, and this job runs after the one that opened it.
        guard let id else { return }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome: Result<Void, any Error>? = state.withLock { state in
                    switch state {
                    case .open:
                        return .success(())
                    case .waiting(let next, var waiters):
                        if Task.isCancelled { return .failure(CancellationError()) }
                        waiters[id] = continuation
                        state = .waiting(next: next, waiters: waiters)
                        return nil
                    }
                }
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            let waiter: CheckedContinuation<Void, any Error>? = state.withLock { state in
                guard case .waiting(let next, var waiters) = state, let waiter = waiters.removeValue(forKey: id) else { return nil }
                state = .waiting(next: next, waiters: waiters)
                return waiter
            }
            waiter?.resume(throwing: CancellationError())
        }
    }
}
