import Synchronization

/// Lets one task at a time through, in arrival order: SQLite's single writer connection holds a
/// transaction across several awaits, which actor isolation alone does not make exclusive.
final class SerialGate: Sendable {
    private struct State {
        var busy = false
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    /// How many callers wait for their turn (tests use it to know a write has queued).
    var waitingCount: Int { state.withLock { $0.waiting.count } }

    /// Runs `body` once every earlier caller has finished.
    func withExclusiveAccess<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        await acquire()
        defer { release() }
        return try await body()
    }

    private func acquire() async {
        await withCheckedContinuation { continuation in
            let enter = state.withLock { state -> Bool in
                if state.busy {
                    state.waiting.append(continuation)
                    return false
                }
                state.busy = true
                return true
            }
            if enter { continuation.resume() }
        }
    }

    private func release() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            if state.waiting.isEmpty {
                state.busy = false
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.resume()
    }
}
