import Synchronization

/// The last head this process saw per stream, so an append can skip reading it.
///
/// Only a hint: the append's compare-and-set on `streams.version` still decides, and a stale entry
/// costs one retry with a fresh read. Bounded: when full it starts over.
final class StreamHeadCache: Sendable {
    private let heads = Mutex<[String: StreamHead]>([:])
    private let capacity: Int

    init(capacity: Int = 50_000) {
        self.capacity = capacity
    }

    func head(of stream: String) -> StreamHead? {
        heads.withLock { $0[stream] }
    }

    func remember(_ head: StreamHead, for stream: String) {
        heads.withLock { heads in
            if heads.count >= capacity && heads[stream] == nil { heads.removeAll(keepingCapacity: true) }
            heads[stream] = head
        }
    }

    func forget(_ stream: String) {
        heads.withLock { _ = $0.removeValue(forKey: stream) }
    }
}
