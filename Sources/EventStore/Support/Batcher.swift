import Synchronization

/// Runs concurrent submissions in batches, so many callers share one database round trip or commit.
///
/// At most `maxBatchesInFlight` batches run at once. A submission that arrives while they are all
/// busy waits, and the next batch takes every submission waiting then (up to `maxBatchSize`). No
/// timer: an idle batcher runs a lone submission at once, and a submission is always run by a batch
/// that started after it arrived. The caller whose submission starts a batch runs it, in its own task
/// and with the `run` it passed, on the batcher's `executor` when it has one; it then runs up to
/// `followOnBatches` more batches of whoever waits before it hands the slot to a waiter. Handing
/// over wakes the waiter's task on the global executor and hops back to `executor`, a wait on a busy
/// machine that the leader, already there, does not have; the cost is that its own answer waits too.
public final class Batcher<Item: Sendable, Output: Sendable>: Sendable {
    /// Runs one batch: one output per item, in the items' order.
    public typealias Run = ([Item]) async throws -> [Output]

    /// A batch of several submissions failed as a whole; `underlying` is its error. The submission
    /// may not be the cause, so a caller can run it again alone.
    public struct SharedBatchFailed: Error {
        /// What the batch threw.
        public let underlying: any Error
    }

    private enum Wake: Sendable {
        case answered(Result<Output, any Error>)
        case lead
    }

    private struct Waiter: Sendable {
        let item: Item
        let continuation: CheckedContinuation<Wake, Never>
    }

    private struct State: Sendable {
        var waiting: [Waiter] = []
        var batchesInFlight = 0
    }

    private let state = Mutex(State())
    private let maxBatchesInFlight: Int
    private let maxBatchSize: Int
    private let executor: (any TaskExecutor)?
    private let followOnBatches: Int

    /// Creates a batcher that runs up to `maxBatchesInFlight` batches of up to `maxBatchSize` at once,
    /// each on `executor` if given (see `EventStore.batchExecutor`); a leader runs up to
    /// `followOnBatches` batches after its own before handing over.
    public init(maxBatchesInFlight: Int, maxBatchSize: Int, executor: (any TaskExecutor)? = nil, followOnBatches: Int = 0) {
        self.maxBatchesInFlight = max(1, maxBatchesInFlight)
        self.maxBatchSize = max(1, maxBatchSize)
        self.executor = executor
        self.followOnBatches = max(0, followOnBatches)
    }

    /// How many submissions wait for a batch now (tests use it to know one has queued).
    public var waitingCount: Int { state.withLock { $0.waiting.count } }

    /// Runs `item` in the first batch that starts after this call and returns its output.
    ///
    /// Throws the batch's error when the batch held only this item, `SharedBatchFailed` when it
    /// held others too.
    public func submit(_ item: Item, run: Run) async throws -> Output {
        let wake = await withCheckedContinuation { (continuation: CheckedContinuation<Wake, Never>) in
            let leads = state.withLock { state -> Bool in
                if state.batchesInFlight < maxBatchesInFlight {
                    state.batchesInFlight += 1
                    return true
                }
                state.waiting.append(Waiter(item: item, continuation: continuation))
                return false
            }
            if leads { continuation.resume(returning: .lead) }
        }
        switch wake {
        case .answered(let answer):
            return try answer.get()
        case .lead:
            return try await lead(with: item, run: run).get()
        }
    }

    /// Runs one batch of `item` and whatever waits, answers the waiters, runs up to `followOnBatches`
    /// batches of those waiting next, then hands the slot to the next waiter (who leads the next
    /// batch) or frees it.
    private func lead(with item: Item, run: Run) async -> Result<Output, any Error> {
        await withTaskExecutorPreference(executor) {
            let followers = takeWaiting(maxBatchSize - 1)
            let own = await runBatch([item] + followers.map(\.item), answering: followers, skipping: 1, run: run)
            for _ in 0..<followOnBatches {
                let next = takeWaiting(maxBatchSize)
                if next.isEmpty { break }
                _ = await runBatch(next.map(\.item), answering: next, skipping: 0, run: run)
            }
            let next = state.withLock { state -> Waiter? in
                guard !state.waiting.isEmpty else {
                    state.batchesInFlight -= 1
                    return nil
                }
                return state.waiting.removeFirst()
            }
            next?.continuation.resume(returning: .lead)
            return own.map { $0[0] }
        }
    }

    /// Removes and returns up to `count` of the longest waiting submissions.
    private func takeWaiting(_ count: Int) -> [Waiter] {
        state.withLock { state in
            let taken = Array(state.waiting.prefix(count))
            state.waiting.removeFirst(taken.count)
            return taken
        }
    }

    /// Runs `items`, answers `waiters` (the items after the first `skipping`), and returns all outputs:
    /// the batch's error as it is when it held one item, as `SharedBatchFailed` when it held several.
    private func runBatch(_ items: [Item], answering waiters: [Waiter], skipping: Int, run: Run) async -> Result<[Output], any Error> {
        let outputs: Result<[Output], any Error>
        do {
            let answered = try await run(items)
            guard answered.count == items.count else {
                throw EventStoreError(.databaseError, "a batch of \(items.count) answered \(answered.count)")
            }
            outputs = .success(answered)
        } catch {
            outputs = .failure(items.count == 1 ? error : SharedBatchFailed(underlying: error))
        }
        for (index, waiter) in waiters.enumerated() {
            waiter.continuation.resume(returning: .answered(outputs.map { $0[index + skipping] }))
        }
        return outputs
    }
}
