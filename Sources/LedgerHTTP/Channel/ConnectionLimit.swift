import Metrics
import NIOCore
import Synchronization

/// Counts the server's open connections against a ceiling shared by every event loop.
///
/// A flood of connections (idle or not) would otherwise use every file descriptor the process has,
/// and then the database pool and verifyReceipt could open none either.
final class ConnectionLimit: Sendable {
    /// The most connections open at once.
    let maximum: Int
    /// How long a refused connection stays after its answer (see ``ConnectionRefusalHandler``).
    let linger: TimeAmount
    /// Every refused connection, made with the server so the series is in `/metrics` from the start.
    let refusals = Counter(label: "subledger_connections_refused_total")
    private let open = Atomic<Int>(0)
    /// When a refusal was last logged (`NIODeadline` uptime nanoseconds), 0 for never.
    private let lastLoggedRefusal = Atomic<UInt64>(0)

    /// The least time between two logged refusals: a flood of connections logs one line a
    /// minute, not one a connection (the metric counts every one).
    static let refusalLogInterval: UInt64 = 60_000_000_000

    init(maximum: Int, linger: TimeAmount = .seconds(1)) {
        self.maximum = max(1, maximum)
        self.linger = linger
    }

    /// Takes a place for a new connection, or returns false when all are taken.
    func acquire() -> Bool {
        var current = open.load(ordering: .relaxed)
        while current < maximum {
            let (exchanged, original) = open.compareExchange(
                expected: current, desired: current + 1, ordering: .acquiringAndReleasing
            )
            if exchanged { return true }
            current = original
        }
        return false
    }

    /// Gives back the place of a connection that closed.
    func release() {
        open.subtract(1, ordering: .acquiringAndReleasing)
    }

    /// Whether a refusal at `now` (uptime nanoseconds) is logged: the first, then one a minute.
    func logsRefusal(at now: UInt64) -> Bool {
        let last = lastLoggedRefusal.load(ordering: .relaxed)
        // `now` can be behind `last` when another event loop logged a moment later.
        guard last == 0 || (now > last && now - last >= Self.refusalLogInterval) else { return false }
        return lastLoggedRefusal.compareExchange(expected: last, desired: max(now, 1), ordering: .relaxed).exchanged
    }

    /// The connections open now.
    var current: Int { open.load(ordering: .relaxed) }
}
