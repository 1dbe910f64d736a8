@testable import EventStore
import Synchronization
import Testing

@Suite("Read batcher")
struct ReadBatcherTests {
    /// Records every batch; the first one waits until `release` is called.
    final class GatedLoad: Sendable {
        let batches = Mutex<[[Int]]>([])
        let gate: AsyncStream<Void>
        let opener: AsyncStream<Void>.Continuation
        let failing: Set<Int>
        let failure: EventStoreError.Code

        init(failing: Set<Int> = [], with failure: EventStoreError.Code = .invalidEvent) {
            (gate, opener) = AsyncStream.makeStream()
            self.failing = failing
            self.failure = failure
        }

        func load(_ keys: [Int]) async throws -> [Int: String] {
            let first = batches.withLock { batches in
                batches.append(keys)
                return batches.count == 1
            }
            if first {
                for await _ in gate { break }
            }
            if keys.contains(where: failing.contains) { throw EventStoreError(failure, "batch failed") }
            let round = batches.withLock { $0.count }
            return Dictionary(uniqueKeysWithValues: keys.filter { $0 >= 0 }.map { ($0, "v\($0)@\(round)") })
        }
    }

    static func waitUntil(_ batcher: ReadBatcher<Int, String>, waiting count: Int) async throws {
        try await EventStoreTests.waitUntil("\(count) waiting") { batcher.waitingCount >= count }
        #expect(batcher.waitingCount == count)
    }

    @Test func readsArrivingDuringABusyBatchShareTheNextOne() async throws {
        let load = GatedLoad()
        let batcher = ReadBatcher<Int, String>(maxBatchesInFlight: 1, maxBatchSize: 100) { try await load.load($0) }
        try await withThrowingTaskGroup(of: (Int, String?).self) { group in
            group.addTask { (0, try await batcher.read(0)) }
            while load.batches.withLock({ $0.isEmpty }) { try await Task.sleep(for: .milliseconds(1)) }
            for key in [1, 2, 3, 2, -1] {
                group.addTask { (key, try await batcher.read(key)) }
            }
            try await Self.waitUntil(batcher, waiting: 5)
            load.opener.yield()
            var answers: [(Int, String?)] = []
            for try await answer in group { answers.append(answer) }

            // The first read went alone; the five that waited went together, each key asked once.
            let batches = load.batches.withLock { $0 }
            #expect(batches.count == 2)
            #expect(batches.first == [0])
            #expect(batches.last.map { $0.sorted() } == [-1, 1, 2, 3])
            // Each read got its own key's value from the batch that started after it arrived.
            for (key, value) in answers {
                #expect(value == (key < 0 ? nil : "v\(key)@\(key == 0 ? 1 : 2)"))
            }
            #expect(answers.count == 6)
        }
        #expect(batcher.waitingCount == 0)
    }

    /// Reads 0 alone (its batch held at the gate), queues `keys` behind it one by one in batches of
    /// at most `batchSize`, opens the gate and answers each key's read: its value, or its error
    /// (a batch holding a key of `failing` fails with `code`).
    static func read(
        _ keys: [Int], behindZero batchSize: Int, failing: Set<Int>, with code: EventStoreError.Code = .invalidEvent
    ) async throws -> (answers: [Int: Result<String?, any Error>], batches: [[Int]]) {
        let load = GatedLoad(failing: failing, with: code)
        let batcher = ReadBatcher<Int, String>(maxBatchesInFlight: 1, maxBatchSize: batchSize) { try await load.load($0) }
        let answers = try await withThrowingTaskGroup(of: (Int, Result<String?, any Error>).self) { group in
            func read(_ key: Int) {
                group.addTask {
                    do { return (key, .success(try await batcher.read(key))) } catch { return (key, .failure(error)) }
                }
            }
            read(0)
            while load.batches.withLock({ $0.isEmpty }) { try await Task.sleep(for: .milliseconds(1)) }
            for (waiting, key) in keys.enumerated() {
                read(key)
                try await Self.waitUntil(batcher, waiting: waiting + 1)
            }
            load.opener.yield()
            var answers: [Int: Result<String?, any Error>] = [:]
            for try await (key, answer) in group { answers[key] = answer }
            return answers
        }
        return (answers, load.batches.withLock { $0 })
    }

    /// A batch the database refuses for one key's data (`invalid_event`) is read again in halves
    /// (here of one key each), within the batch: the key that fails fails alone, the others of its
    /// batch get their values, and the next batch waits for it, as `maxBatchesInFlight` says.
    @Test func aBatchTheDatabaseRefusesIsReadAgainInHalves() async throws {
        let (answers, batches) = try await Self.read([7, 8, 9], behindZero: 2, failing: [7])
        #expect(batches == [[0], [7, 8], [7], [8], [9]])
        #expect(try answers[0]?.get() == "v0@1")
        await expectStoreError(.invalidEvent, "key 7") { _ = try answers[7]?.get() }
        #expect(try answers[8]?.get() == "v8@4")
        #expect(try answers[9]?.get() == "v9@5")
    }

    /// A refused batch is asked again in halves, and only a refused half in halves again: one
    /// refused key among eight costs six more statements, not eight.
    @Test func aRefusedBatchIsAskedAgainInHalvesDownToTheRefusedKey() async throws {
        let (answers, batches) = try await Self.read(Array(1...8), behindZero: 8, failing: [3])
        #expect(batches == [[0], [1, 2, 3, 4, 5, 6, 7, 8], [1, 2, 3, 4], [1, 2], [3, 4], [3], [4], [5, 6, 7, 8]])
        await expectStoreError(.invalidEvent, "key 3") { _ = try answers[3]?.get() }
        for key in [1, 2, 4, 5, 6, 7, 8] {
            #expect(try answers[key]?.get()?.hasPrefix("v\(key)@") == true, "key \(key)")
        }
    }

    /// Holds the first batch at `gate` until `opener` yields, and the third (a refused batch's first
    /// ask again) at `held` until its task is cancelled; fails every batch holding 3.
    final class HeldLoad: Sendable {
        let batches = Mutex<[[Int]]>([])
        let gate: AsyncStream<Void>
        let opener: AsyncStream<Void>.Continuation
        let held: AsyncStream<Void>
        let holder: AsyncStream<Void>.Continuation

        init() {
            (gate, opener) = AsyncStream.makeStream()
            (held, holder) = AsyncStream.makeStream()
        }

        func load(_ keys: [Int]) async throws -> [Int: String] {
            let count = batches.withLock { batches in
                batches.append(keys)
                return batches.count
            }
            if count == 1 {
                for await _ in gate { break }
            } else if count == 3 {
                for await _ in held { break }
            }
            if keys.contains(3) { throw EventStoreError(.invalidEvent, "batch failed") }
            return Dictionary(uniqueKeysWithValues: keys.map { ($0, "v\($0)") })
        }
    }

    /// The batch's leader is cancelled (its client went away) while it asks a refused batch again:
    /// the other readers of that batch read again in a batch of their own and get their answers,
    /// the refused key its error, and only the leader's read ends cancelled.
    @Test(.timeLimit(.minutes(1)))
    func cancellingTheLeaderWhileItAsksAgainLeavesTheOthersToReadAgain() async throws {
        let load = HeldLoad()
        let batcher = ReadBatcher<Int, String>(maxBatchesInFlight: 1, maxBatchSize: 8) { try await load.load($0) }
        try await withThrowingTaskGroup(of: (Int, Result<String?, any Error>).self) { group in
            func read(_ key: Int) {
                group.addTask {
                    do { return (key, .success(try await batcher.read(key))) } catch { return (key, .failure(error)) }
                }
            }
            // 0 holds the only slot, so 1 to 4 queue; 1 queued first, so it leads their batch.
            read(0)
            while load.batches.withLock({ $0.isEmpty }) { try await Task.sleep(for: .milliseconds(1)) }
            let leader = Task { try await batcher.read(1) }
            try await Self.waitUntil(batcher, waiting: 1)
            for key in 2...4 {
                read(key)
                try await Self.waitUntil(batcher, waiting: key)
            }
            load.opener.yield()
            // Cancelled any earlier, the leader would leave the held batch to a reader nobody cancels.
            try await EventStoreTests.waitUntil("the third batch") { load.batches.withLock { $0.count } >= 3 }
            // Read outside `#expect`: inside a task group's closure, `#expect(m.withLock {
            // Array($0.prefix(2)) } == ...)` left the mutex holding only that prefix (swift-testing
            // 6.3.1). Reproduced alone: an async test holding a `Mutex<[[Int]]>` of three arrays in a
            // class, that line inside `withThrowingTaskGroup`, then `m.withLock { $0 }.count` is 2;
            // the same lines outside the task group give 3.
            let first = load.batches.withLock { Array($0.prefix(2)) }
            #expect(first == [[0], [1, 2, 3, 4]])
            leader.cancel()
            await #expect(throws: CancellationError.self) { try await leader.value }
            var answers: [Int: Result<String?, any Error>] = [:]
            for try await (key, answer) in group { answers[key] = answer }
            #expect(try answers[0]?.get() == "v0")
            #expect(try answers[2]?.get() == "v2")
            #expect(try answers[4]?.get() == "v4")
            await expectStoreError(.invalidEvent, "key 3") { _ = try answers[3]?.get() }
            // 2 to 4 went round again: a batch after the cancelled one held each of them.
            let batches = load.batches.withLock { $0 }
            let retried = Set(batches.dropFirst(3).flatMap { $0 })
            #expect(retried == [2, 3, 4], "\(batches)")
        }
        #expect(batcher.waitingCount == 0)
    }

    /// Any other failure (an outage, a statement timeout) fails every read of the batch, and is not
    /// asked again in halves.
    @Test(arguments: [EventStoreError.Code.storageUnavailable, .databaseError])
    func anyOtherFailureFailsTheWholeBatchOnce(_ code: EventStoreError.Code) async throws {
        let (answers, batches) = try await Self.read([7, 8, 9], behindZero: 2, failing: [7], with: code)
        #expect(batches == [[0], [7, 8], [9]])
        #expect(try answers[0]?.get() == "v0@1")
        await expectStoreError(code, "key 7") { _ = try answers[7]?.get() }
        await expectStoreError(code, "key 8") { _ = try answers[8]?.get() }
        #expect(try answers[9]?.get() == "v9@3")
    }

    /// With two batches allowed in flight, a read goes at once while the first batch is stuck (the
    /// first test shows a read waiting once every slot is busy).
    @Test func aReadGoesAtOnceWhileABatchSlotIsFree() async throws {
        let load = GatedLoad()
        let batcher = ReadBatcher<Int, String>(maxBatchesInFlight: 2, maxBatchSize: 100) { try await load.load($0) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                let value = try await batcher.read(0)
                #expect(value?.hasPrefix("v0@") == true)
            }
            while load.batches.withLock({ $0.isEmpty }) { try await Task.sleep(for: .milliseconds(1)) }
            // The first batch is stuck at the gate; the second slot answers this read meanwhile.
            let second = Mutex<String?>(nil)
            group.addTask {
                let value = try await batcher.read(1)
                second.withLock { $0 = value }
            }
            try await EventStoreTests.waitUntil("the second read's answer") { second.withLock { $0 != nil } }
            #expect(second.withLock { $0 } == "v1@2", "the second read waited for the stuck batch")
            #expect(batcher.waitingCount == 0)
            load.opener.yield()
            try await group.waitForAll()
        }
        // Idle again: each read goes alone, at once.
        for key in 2..<4 {
            #expect(try await batcher.read(key)?.hasPrefix("v\(key)@") == true)
        }
        #expect(load.batches.withLock { $0 } == [[0], [1], [2], [3]])
    }
}
