/// Follows the global log from a cursor, forever: the catch-up reader projectors and the NDJSON feed use.
///
/// It reads pages with `readAll`; when it has caught up it sleeps until the store's `ChangeSignal`
/// fires (PostgreSQL NOTIFY from any process, or an in-process append) or `pollInterval` passes, so a
/// lost notification costs at most one interval. Iteration ends when the task is cancelled.
///
/// A signal can come before its events are readable: PostgreSQL's `readAll` holds back events until
/// every older write transaction on the cluster has ended, and nothing signals that moment. So after a
/// signal, a read that finds nothing is tried again after 10 ms, then after twice as long each time,
/// up to `pollInterval`, instead of waiting the whole interval.
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
    public struct Iterator: AsyncIteratorProtocol {
        let feed: EventFeed
        /// The cursor of the last event handed out.
        public private(set) var cursor: EventCursor
        var buffer: [RecordedEvent] = []
        var index = 0
        /// How long to wait before reading again after a signalled read found nothing; nil when no
        /// signal is outstanding. A page of events leaves it as it is: the signal may stand for more
        /// events than the page could see.
        var recheck: Duration?

        init(feed: EventFeed, cursor: EventCursor) {
            self.feed = feed
            self.cursor = cursor
        }

        static let firstRecheck = Duration.milliseconds(10)

        public mutating func next() async throws -> RecordedEvent? {
            while index >= buffer.count {
                if Task.isCancelled { return nil }
                let generation = feed.store.changes.generation
                let page = try await feed.store.readAll(after: cursor, limit: feed.pageSize)
                if page.events.isEmpty {
                    let wait = recheck.map { Swift.min($0, feed.pollInterval) } ?? feed.pollInterval
                    await feed.store.changes.wait(after: generation, timeout: wait)
                    if feed.store.changes.generation != generation {
                        recheck = Self.firstRecheck
                    } else if let previous = recheck {
                        recheck = previous < feed.pollInterval ? previous * 2 : nil
                    }
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
