/// Follows the global log from a cursor, forever: the catch-up reader projectors and the NDJSON feed use.
///
/// It reads pages with `readAll`; when it has caught up it sleeps until the store's `ChangeSignal`
/// fires (PostgreSQL NOTIFY from any process, or an in-process append) or `pollInterval` passes, so a
/// lost notification costs at most one interval. Iteration ends when the task is cancelled.
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

        init(feed: EventFeed, cursor: EventCursor) {
            self.feed = feed
            self.cursor = cursor
        }

        public mutating func next() async throws -> RecordedEvent? {
            while index >= buffer.count {
                if Task.isCancelled { return nil }
                let generation = feed.store.changes.generation
                let page = try await feed.store.readAll(after: cursor, limit: feed.pageSize)
                if page.events.isEmpty {
                    await feed.store.changes.wait(after: generation, timeout: feed.pollInterval)
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
