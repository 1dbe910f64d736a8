import Synchronization

/// Carries one leased connection from the task that waits in the pool to the task that uses it,
/// and back: the waiting side hands the connection over, the using side says when it is done.
///
/// Either side may lose a race with the deadline: a connection delivered after the waiter gave up
/// is refused (`deliver` returns false) and goes straight back to the pool.
final class LeaseHandoff<Connection: Sendable>: Sendable {
    private enum Delivery {
        case waiting(CheckedContinuation<Connection, any Error>?)
        case delivered(Connection)
        case failed(any Error)
        case finished
    }

    private enum Release {
        case held(CheckedContinuation<Void, Never>?)
        case released
    }

    private let delivery = Mutex(Delivery.waiting(nil))
    private let releaseState = Mutex(Release.held(nil))

    init() {}

    /// Whether the user waits for the connection now (tests use it to know the wait began).
    var isAwaited: Bool {
        delivery.withLock { state in
            if case .waiting(let waiter) = state { return waiter != nil }
            return false
        }
    }

    /// Hands `connection` to the user; false if the user already gave up waiting.
    func deliver(_ connection: Connection) -> Bool {
        let waiter: CheckedContinuation<Connection, any Error>?? = delivery.withLock { state in
            switch state {
            case .waiting(let waiter):
                state = waiter == nil ? .delivered(connection) : .finished
                return .some(waiter)
            case .delivered, .failed, .finished:
                return .none
            }
        }
        guard let waiter else { return false }
        waiter?.resume(returning: connection)
        return true
    }

    /// Ends the wait with `error` (the deadline passed, or leasing failed); no effect once delivered.
    func fail(_ error: any Error) {
        let waiter: CheckedContinuation<Connection, any Error>? = delivery.withLock { state in
            guard case .waiting(let waiter) = state else { return nil }
            state = waiter == nil ? .failed(error) : .finished
            return waiter
        }
        waiter?.resume(throwing: error)
    }

    /// The delivered connection, waiting for it if need be; throws what `fail` was given.
    func connection() async throws -> Connection {
        try await withCheckedThrowingContinuation { continuation in
            let outcome: Result<Connection, any Error>? = delivery.withLock { state in
                switch state {
                case .waiting:
                    state = .waiting(continuation)
                    return nil
                case .delivered(let connection):
                    state = .finished
                    return .success(connection)
                case .failed(let error):
                    state = .finished
                    return .failure(error)
                case .finished:
                    return .failure(EventStoreError(.storageUnavailable, "a connection lease was collected twice"))
                }
            }
            if let outcome { continuation.resume(with: outcome) }
        }
    }

    /// Tells the leasing task the user is done with the connection.
    func release() {
        let waiter: CheckedContinuation<Void, Never>? = releaseState.withLock { state in
            guard case .held(let waiter) = state else { return nil }
            state = .released
            return waiter
        }
        waiter?.resume()
    }

    /// Returns once `release` was called. Not cancellable: the connection is in use until then.
    func waitForRelease() async {
        await withCheckedContinuation { continuation in
            let released = releaseState.withLock { state in
                switch state {
                case .held:
                    state = .held(continuation)
                    return false
                case .released:
                    return true
                }
            }
            if released { continuation.resume() }
        }
    }
}
