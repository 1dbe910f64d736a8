import Synchronization

/// A wake-up hint for catch-up readers: raised after events are appended.
///
/// It carries no data, and a reader must still read the log to learn what changed; a missed signal only
/// costs a poll interval. Readers take the `generation` before reading, then `wait(after:)` so a signal
/// raised between the read and the wait is not lost.
public final class ChangeSignal: Sendable {
    private struct State {
        var generation: UInt64 = 0
        var nextWaiter: UInt64 = 0
        var waiters: [UInt64: Waiter] = [:]
    }

    private enum Waiter {
        case suspended(CheckedContinuation<Void, Never>)
        case released
    }

    private let state = Mutex(State())

    /// Creates a signal with no waiters.
    public init() {}

    /// Increases with every `notify()`; compare before and after a read to detect a change.
    public var generation: UInt64 { state.withLock { $0.generation } }

    /// How many waiters are suspended now (tests use it to know a wait began).
    var suspendedCount: Int {
        state.withLock { state in
            state.waiters.values.filter { if case .suspended = $0 { return true } else { return false } }.count
        }
    }

    /// Wakes every waiter.
    public func notify() {
        let woken = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.generation &+= 1
            var continuations: [CheckedContinuation<Void, Never>] = []
            for (id, waiter) in state.waiters {
                if case .suspended(let continuation) = waiter {
                    continuations.append(continuation)
                    state.waiters[id] = nil
                }
            }
            return continuations
        }
        for continuation in woken { continuation.resume() }
    }

    /// Suspends until the generation moves past `generation`, `timeout` passes, or the task is cancelled.
    public func wait(after generation: UInt64, timeout: Duration) async {
        let id = state.withLock { state -> UInt64? in
            guard state.generation == generation else { return nil }
            state.nextWaiter &+= 1
            return state.nextWaiter
        }
        guard let id else { return }
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                try? await Task.sleep(for: timeout)
                self.release(id)
            }
            await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in
                    let resumeNow = state.withLock { state -> Bool in
                        if case .released = state.waiters[id] {
                            state.waiters[id] = nil
                            return true
                        }
                        if state.generation != generation {
                            return true
                        }
                        state.waiters[id] = .suspended(continuation)
                        return false
                    }
                    if resumeNow { continuation.resume() }
                }
            } onCancel: {
                self.release(id)
            }
            group.cancelAll()
        }
        state.withLock { _ = $0.waiters.removeValue(forKey: id) }
    }

    /// Resumes one waiter, or marks it released if it has not suspended yet.
    private func release(_ id: UInt64) {
        let continuation = state.withLock { state -> CheckedContinuation<Void, Never>? in
            switch state.waiters[id] {
            case .suspended(let continuation):
                state.waiters[id] = nil
                return continuation
            case .released:
                return nil
            case nil:
                state.waiters[id] = .released
                return nil
            }
        }
        continuation?.resume()
    }
}
