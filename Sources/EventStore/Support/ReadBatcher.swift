/// Coalesces concurrent reads into batches, so many readers share one database round trip.
///
/// A `Batcher` of keys: each batch asks every distinct key once. A read is always answered by a
/// batch that started after it arrived, so it sees every write committed before it was made. A
/// batch whose statement the database refuses for what a key holds (`invalid_event`: a stored
/// document it cannot read) asks its keys again in halves, within the batch, until only that key's
/// readers fail; any other failure (an outage, a timeout) fails the batch's reads once.
final class ReadBatcher<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    /// Answers one batch; a key missing from the answer reads as nil.
    typealias Load = @Sendable ([Key]) async throws -> [Key: Value]

    private let batcher: Batcher<Key, Result<Value?, any Error>>
    private let load: Load

    /// Creates a batcher over `load`, whose batches run on `executor` if given.
    init(maxBatchesInFlight: Int, maxBatchSize: Int, executor: (any TaskExecutor)? = nil, load: @escaping Load) {
        batcher = Batcher(maxBatchesInFlight: maxBatchesInFlight, maxBatchSize: maxBatchSize, executor: executor)
        self.load = load
    }

    /// Asks each distinct key once (again in halves after the batch's `invalid_event`) and answers
    /// every read of it.
    private func loadDistinct(_ keys: [Key]) async throws -> [Result<Value?, any Error>] {
        var distinct: [Key] = []
        var seen: Set<Key> = []
        for key in keys where seen.insert(key).inserted {
            distinct.append(key)
        }
        do {
            let answers = try await load(distinct)
            return keys.map { .success(answers[$0]) }
        } catch let refused as EventStoreError where refused.code == .invalidEvent && distinct.count > 1 {
            // In this batch's place, so no more statements run than batches may.
            var answers: [Key: Result<Value?, any Error>] = [:]
            try await loadInHalves(distinct[...], into: &answers)
            return keys.map { answers[$0] ?? .failure(EventStoreError(.databaseError, "a key of a refused batch went unread")) }
        }
    }

    /// Asks each half of `keys` in turn, and each half the database refuses (`invalid_event`) in
    /// halves again, down to the keys it refuses alone: one refused key among n costs about
    /// 2 log2(n) statements (16 for a batch of 256), every key refused 2n - 2.
    private func loadInHalves(_ keys: ArraySlice<Key>, into answers: inout [Key: Result<Value?, any Error>]) async throws {
        let middle = keys.startIndex + keys.count / 2
        for half in [keys[..<middle], keys[middle...]] where !half.isEmpty {
            try Task.checkCancellation()
            do {
                let loaded = try await load(Array(half))
                for key in half {
                    answers[key] = .success(loaded[key])
                }
            } catch let refused as EventStoreError where refused.code == .invalidEvent {
                if half.count == 1, let key = half.first {
                    answers[key] = .failure(refused)
                } else {
                    try await loadInHalves(half, into: &answers)
                }
            }
        }
    }

    /// How many reads wait for a batch now (tests use it to know a read has queued).
    var waitingCount: Int { batcher.waitingCount }

    /// The value for `key`, read in the first batch that starts after this call.
    func read(_ key: Key) async throws -> Value? {
        while true {
            do {
                return try await batcher.submit(key, run: loadDistinct).get()
            } catch let failed as Batcher<Key, Result<Value?, any Error>>.SharedBatchFailed {
                // The batch's leader was cancelled (its client went away), not this reader: read again.
                if failed.underlying is CancellationError && !Task.isCancelled { continue }
                throw failed.underlying
            }
        }
    }
}
