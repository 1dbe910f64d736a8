import Synchronization

/// Hands out indexes to workers.
final class Counter: Sendable {
    private let value = Synchronization.Mutex(0)
    func take(below limit: Int) -> Int? {
        value.withLock { current in
            guard current < limit else { return nil }
            defer { current += 1 }
            return current
        }
    }
}
