import Synchronization

/// A count one task of a test adds to and another watches.
final class Tally: Sendable {
    private let state = Mutex(0)

    /// Adds one.
    func add() { state.withLock { $0 += 1 } }

    /// The count so far.
    var value: Int { state.withLock { $0 } }

    /// Waits until the count passes `value`, polling every 5 ms for up to `limit`; whether it did.
    func waitPast(_ value: Int, limit: Duration = .seconds(5)) async throws -> Bool {
        let deadline = ContinuousClock.now + limit
        while self.value <= value, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        return self.value > value
    }
}
