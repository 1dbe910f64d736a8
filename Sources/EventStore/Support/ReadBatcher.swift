import Synchronization

/// Coalesces concurrent reads into batches, so many readers share one database round trip.
///
/// At most `maxBatchesInFlight` batches run at once. A read that arrives while they are all busy
/// waits, and the next batch takes every read waiting then. No timer: an idle store answers a lone
/// read at once, and a read is always answered by a batch that started after it arrived, so it sees
/// every write committed before it was made.
final class ReadBatcher<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    /// Answers one batch; a key missing from the answer reads as nil.
    typealias Load = @Sendable ([Key]) async throws -> [Key: Value]

    private enum Wake: Sendable {
        case answered(Result<Value?, any Error>)
        case lead
    }

    private struct Waiter: Sendable {
        let key: Key
        let continuation: CheckedContinuation<Wake, Never>
    }

    private struct State: Sendable {
        var waiting: [Waiter] = []
        var batchesInFlight = 0
    }

    private let state = Mutex(State())
    private let maxBatchesInFlight: Int
    private let maxBatchSize: Int
    private let load: Load

    /// Creates a batcher over `load`.
    init(maxBatchesInFlight: Int, maxBatchSize: Int, load: @escaping Load) {
        self.maxBatchesInFlight = max(1, maxBatchesInFlight)
        self.maxBatchSize = max(1, maxBatchSize)
        self.load = load
    }

    /// How many reads wait for a batch now (tests use it to know a read has queued).
    var waitingCount: Int { state.withLock { $0.waiting.count } }

    /// The value for `key`, read in the first batch that starts after this call.
    func read(_ key: Key) async throws -> Value? {
        while true {
            do {
                return try await readOnce(key)
            } catch is CancellationError where !Task.isCancelled {
                // The batch's leader was cancelled (its client went away), not this reader: read again.
                continue
            }
        }
    }

    private func readOnce(_ key: Key) async throws -> Value? {
        let wake = await withCheckedContinuation { (continuation: CheckedContinuation<Wake, Never>) in
            let leads = state.withLock { state -> Bool in
                if state.batchesInFlight < maxBatchesInFlight {
                    state.batchesInFlight += 1
                    return true
                }
                state.waiting.append(Waiter(key: key, continuation: continuation))
                return false
            }
            if leads { continuation.resume(returning: .lead) }
        }
        switch wake {
        case .answered(let answer):
            return try answer.get()
        case .lead:
            return try await lead(with: key).get()
        }
    }

    /// Runs one batch of `key` and whatever waits, answers the waiters, then hands the slot to the
    /// next waiter (who leads the next batch) or frees it.
    private func lead(with key: Key) async -> Result<Value?, any Error> {
        let followers = state.withLock { state -> [Waiter] in
            let taken = Array(state.waiting.prefix(maxBatchSize - 1))
            state.waiting.removeFirst(taken.count)
            return taken
        }
        var keys = [key]
        var seen: Set<Key> = [key]
        for follower in followers where seen.insert(follower.key).inserted {
            keys.append(follower.key)
        }
        let answers: Result<[Key: Value], any Error>
        do {
            answers = .success(try await load(keys))
        } catch {
            answers = .failure(error)
        }
        for follower in followers {
            follower.continuation.resume(returning: .answered(answers.map { $0[follower.key] }))
        }
        let next = state.withLock { state -> Waiter? in
            guard !state.waiting.isEmpty else {
                state.batchesInFlight -= 1
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.continuation.resume(returning: .lead)
        return answers.map { $0[key] }
    }
}
