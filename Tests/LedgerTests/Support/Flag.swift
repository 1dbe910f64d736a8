import Synchronization

/// Set by a test's writer when it has written everything, read by the task running beside it.
final class Flag: Sendable {
    private let state = Mutex(false)

    /// Marks the writer done.
    func set() { state.withLock { $0 = true } }

    /// Whether the writer is done.
    var isSet: Bool { state.withLock { $0 } }
}
