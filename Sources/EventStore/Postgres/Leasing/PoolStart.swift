import Synchronization

/// Holds every lease back until the pool's `run()` has begun.
///
/// postgres-nio warns ("`PostgresClient.run()` hasn't been called yet") when a connection is leased
/// before the pool's `run()` has begun. A command starts `run()` in a child task and its first
/// statement in the parent, so which came first was a race, and offline commands sometimes printed
/// the warning.
///
/// The order is made on one serial executor: `open(thenRun:)` opens the gate and enters `run()` in
/// one job on it, and a lease that finds the gate not known open waits on that executor too, so it
/// goes on only once that job has reached `run()`'s first suspension. The first lease through says
/// so, and later ones pass without leaving their executor.
package final class PoolStart: Sendable {
    private enum State {
        case waiting(next: Int, waiters: [Int: CheckedContinuation<Void, any Error>])
        /// Opened; `confirmed` once a lease got through on `executor`, after the opening job.
        case open(confirmed: Bool)
    }

    private let state = Mutex(State.waiting(next: 0, waiters: [:]))
    private let executor: any TaskExecutor

    /// A gate ordered on `executor`, which must run one job at a time (an event loop's).
    package init(on executor: any TaskExecutor) {
        self.executor = executor
    }

    /// Opens the gate and calls `run` in the same job, so no lease goes on before `run` has begun.
    /// Returns when `run` does.
    package func open(thenRun run: @Sendable () async -> Void) async {
        await withTaskExecutorPreference(executor) {
            let waiters: [CheckedContinuation<Void, any Error>] = state.withLock { state in
                guard case .waiting(_, let waiters) = state else { return [] }
                state = .open(confirmed: false)
                return Array(waiters.values)
            }
            // Each resumes on `executor`, so only after this job, in `run`, suspends.
            for waiter in waiters { waiter.resume() }
            await run()
        }
    }

    /// Returns once `run` has begun: at once when a lease already saw that. Throws
    /// `CancellationError` when the task is cancelled first (a lease whose deadline passed).
    package func wait() async throws {
        if state.withLock({ if case .open(confirmed: true) = $0 { true } else { false } }) { return }
        try await withTaskExecutorPreference(executor) {
            try await waitOnExecutor()
            // Running on `executor` again: the opening job is past its synchronous start.
            state.withLock { $0 = .open(confirmed: true) }
        }
    }

    private func waitOnExecutor() async throws {
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
