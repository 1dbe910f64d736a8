import Synchronization

/// Bounds how many NDJSON feed streams run at once.
///
/// A stream holds a page of events and a piece of their text while its reader is slow, until the
/// write-stall timeout; without a bound, one read key could open thousands (up to
/// `http.max_connections`) and hold gigabytes. A stream beyond the bound is refused before it starts.
final class FeedStreamGate: Sendable {
    /// The most streams at once (`http.max_feed_streams`).
    let maximum: Int
    private let open = Mutex(0)

    init(maximum: Int) {
        self.maximum = maximum
    }

    /// A place for one stream, or nil when `maximum` are open. The place is freed when the permit
    /// goes, whatever ends the stream (its end, the client leaving, a HEAD answered without it).
    func enter() -> Permit? {
        let entered = open.withLock { count in
            guard count < maximum else { return false }
            count += 1
            return true
        }
        return entered ? Permit(gate: self) : nil
    }

    fileprivate func leave() {
        open.withLock { $0 -= 1 }
    }

    /// One stream's place; freed on deinit.
    final class Permit: Sendable {
        private let gate: FeedStreamGate

        fileprivate init(gate: FeedStreamGate) {
            self.gate = gate
        }

        deinit {
            gate.leave()
        }
    }
}
