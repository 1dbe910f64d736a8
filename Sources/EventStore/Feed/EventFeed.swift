/// Follows the global log from a cursor, forever: a catch-up reader for code that folds the log as it
/// grows. (The service itself folds inline and its NDJSON feed pages to the end of the log; this is
/// the store's API for followers in other processes.)
///
/// It reads pages with `readAll`; when it has caught up it sleeps until the store's `ChangeSignal`
/// fires (PostgreSQL NOTIFY from any process, or an in-process append) or `pollInterval` passes, so a
/// lost notification costs at most one interval. Iteration ends when the task is cancelled.
///
/// A signal can come before its events are readable: PostgreSQL's `readAll` holds back events until
/// every older write transaction on the cluster has ended, and nothing signals that moment. So after a
/// signal, a read that finds nothing is tried again after 10 ms, then after twice as long each time up
/// to a second, until a `pollInterval` has passed since the signal, instead of waiting the whole interval.
public struct EventFeed: AsyncSequence, Sendable {
    public typealias Element = RecordedEvent

    let store: any EventStore
    let cursor: EventCursor
    let pageSize: Int
    let pollInterval: Duration

    /// Creates a feed of every event after `cursor`.
    public init(store: any EventStore, after cursor: EventCursor, pageSize: Int = 500, pollInterval: Duration = .seconds(1)) {
        self.store = store
        self.cursor = cursor
        self.pageSize = pageSize
        self.pollInterval = pollInterval
    }

    public func makeAsyncIterator() -> Iterator {
        Iterator(feed: self, cursor: cursor)
    }

    /// Yields events in log order, waiting for more when caught up.
    public struct Iterator: AsyncIteratorProtocol, Sendable {
        let feed: EventFeed
        /// The cursor of the last event handed out.
        public private(set) var cursor: EventCursor
        var buffer: [RecordedEvent] = []
        var index = 0
        /// The signal's generation at the last read that found nothing: a different one at the next
        /// such read means a signal came in between, whether during a wait or while the caller was
        /// busy with the previous page.
        var seen: UInt64
        /// While a signal's events may be held back: how long to wait before reading again, and when
        /// rechecking gives way to plain polling. Nil when no signal is outstanding.
        var recheck: (wait: Duration, ends: ContinuousClock.Instant)?

        init(feed: EventFeed, cursor: EventCursor) {
            self.feed = feed
            self.cursor = cursor
            self.seen = feed.store.changes.generation
        }

        static let firstRecheck = Duration.milliseconds(10)
        static let longestRecheck = Duration.seconds(1)

        public mutating func next() async throws -> RecordedEvent? {
            while index >= buffer.count {
                if Task.isCancelled { return nil }
                let generation = feed.store.changes.generation
                let page = try await feed.store.readAll(after: cursor, limit: feed.pageSize)
                if page.events.isEmpty {
                    let now = ContinuousClock.now
                    if generation != seen {
                        recheck = (Self.firstRecheck, now + feed.pollInterval)
                    } else if let previous = recheck {
                        recheck = now >= previous.ends ? nil : (Swift.min(previous.wait * 2, Self.longestRecheck), previous.ends)
                    }
                    seen = generation
                    let wait = recheck.map { Swift.min($0.wait, feed.pollInterval) } ?? feed.pollInterval
                    await feed.store.changes.wait(after: generation, timeout: wait)
                    continue
                }
                buffer = page.events
                index = 0
            }
            let event = buffer[index]
            index += 1
            cursor = event.cursor
            return event
        }
    }
}
