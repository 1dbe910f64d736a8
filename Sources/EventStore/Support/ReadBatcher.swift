/// Coalesces concurrent reads into batches, so many readers share one database round trip.
///
/// A `Batcher` of keys: each batch asks every distinct key once. A read is always answered by a
/// batch that started after it arrived, so it sees every write committed before it was made. A
/// batch the database refuses for what one key holds is read again key by key.
final class ReadBatcher<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    /// Answers one batch; a key missing from the answer reads as nil.
    typealias Load = @Sendable ([Key]) async throws -> [Key: Value]

    private let batcher: Batcher<Key, Value?>
    private let load: Load

    /// Creates a batcher over `load`, whose batches run on `executor` if given.
    init(maxBatchesInFlight: Int, maxBatchSize: Int, executor: (any TaskExecutor)? = nil, load: @escaping Load) {
        batcher = Batcher(maxBatchesInFlight: maxBatchesInFlight, maxBatchSize: maxBatchSize, executor: executor)
        self.load = load
    }

    /// Asks each distinct key once and answers every read of it.
    private func loadDistinct(_ keys: [Key]) async throws -> [Value?] {
        var distinct: [Key] = []
        var seen: Set<Key> = []
        for key in keys where seen.insert(key).inserted {
            distinct.append(key)
        }
        let answers = try await load(distinct)
        return keys.map { answers[$0] }
    }

    /// How many reads wait for a batch now (tests use it to know a read has queued).
    var waitingCount: Int { batcher.waitingCount }

    /// The value for `key`, read in the first batch that starts after this call.
    func read(_ key: Key) async throws -> Value? {
        while true {
            do {
                return try await batcher.submit(key, run: loadDistinct)
            } catch let failed as Batcher<Key, Value?>.SharedBatchFailed {
                // The batch's leader was cancelled (its client went away), not this reader: read again.
                if failed.underlying is CancellationError && !Task.isCancelled { continue }
                // The database refused the statement for what one key holds (a stored document it
                // cannot read): this key is read alone, so that fails only its own readers. An outage
                // (storage_unavailable) fails every read alike, and is not asked twice.
                if let refused = failed.underlying as? EventStoreError, refused.code == .databaseError || refused.code == .invalidEvent {
                    return try await load([key])[key]
                }
                throw failed.underlying
            }
        }
    }
}
