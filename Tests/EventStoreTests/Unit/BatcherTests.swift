import EventStore
import NIOPosix
import Synchronization
import Testing

@Suite("Batcher")
struct BatcherTests {
    struct Failed: Error, Equatable {}

    /// Runs batches, holding the first until `release`, and fails any batch holding a negative item.
    final class GatedRun: Sendable {
        let batches = Mutex<[[Int]]>([])
        let gate: AsyncStream<Void>
        let opener: AsyncStream<Void>.Continuation

        init() { (gate, opener) = AsyncStream.makeStream() }

        func run(_ items: [Int]) async throws -> [String] {
            let first = batches.withLock { batches in
                batches.append(items)
                return batches.count == 1
            }
            if first {
                for await _ in gate { break }
            }
            if items.contains(where: { $0 < 0 }) { throw Failed() }
            return items.map { "out\($0)" }
        }
    }

    /// Two runs that log each batch with their tag ("A[0]"); the first batch waits for `opener`.
    final class TaggedRuns: Sendable {
        let log = Mutex<[String]>([])
        let gate: AsyncStream<Void>
        let opener: AsyncStream<Void>.Continuation

        init() { (gate, opener) = AsyncStream.makeStream() }

        func a(_ items: [Int]) async -> [String] { await run("A", items) }
        func b(_ items: [Int]) async -> [String] { await run("B", items) }

        private func run(_ tag: String, _ items: [Int]) async -> [String] {
            if log.withLock({ $0.append("\(tag)\(items)"); return $0.count == 1 }) {
                for await _ in gate { break }
            }
            return items.map { "out\($0)" }
        }
    }

    static func capture(_ body: () async throws -> String) async -> Result<String, any Error> {
        do { return .success(try await body()) } catch { return .failure(error) }
    }

    static func waitUntil(_ batcher: Batcher<Int, String>, waiting count: Int) async throws {
        try await EventStoreTests.waitUntil("\(count) waiting") { batcher.waitingCount >= count }
        #expect(batcher.waitingCount == count)
    }

    /// Each submitter gets its own output; when a shared batch fails, each gets `SharedBatchFailed`
    /// (so it can run alone), while a batch of one fails with the error itself.
    @Test func outputsReachTheirSubmittersAndSharedFailuresSaySo() async throws {
        let run = GatedRun()
        let batcher = Batcher<Int, String>(maxBatchesInFlight: 1, maxBatchSize: 100)
        try await withThrowingTaskGroup(of: (Int, Result<String, any Error>).self) { group in
            group.addTask { (0, await Self.capture { try await batcher.submit(0, run: run.run) }) }
            try await EventStoreTests.waitUntil("the first batch") { !run.batches.withLock { $0.isEmpty } }
            for item in [1, 2, -3] {
                group.addTask { (item, await Self.capture { try await batcher.submit(item, run: run.run) }) }
            }
            try await Self.waitUntil(batcher, waiting: 3)
            run.opener.yield()
            var answers: [Int: Result<String, any Error>] = [:]
            for try await (item, answer) in group { answers[item] = answer }
            #expect(try answers[0]?.get() == "out0")
            for item in [1, 2, -3] {
                #expect(throws: Batcher<Int, String>.SharedBatchFailed.self) { try answers[item]?.get() }
            }
        }
        #expect(run.batches.withLock { $0.map { Set($0) } } == [[0], [1, 2, -3]])
        await #expect(throws: Failed.self) { try await batcher.submit(-4, run: run.run) }
    }

    /// With `followOnBatches: 1` the submitter that led a batch runs the next one too, with its own
    /// `run`, and only then hands over; without, the next batch is led by a waiter, with the waiter's.
    @Test(arguments: [(1, ["A[0]", "A[1, 2]", "B[3, 4]"]), (0, ["A[0]", "B[1, 2]", "B[3, 4]"])])
    func aLeaderRunsItsFollowOnBatchesBeforeHandingOver(followOnBatches: Int, expected: [String]) async throws {
        let batcher = Batcher<Int, String>(maxBatchesInFlight: 1, maxBatchSize: 2, followOnBatches: followOnBatches)
        let runs = TaggedRuns()
        try await withThrowingTaskGroup(of: (Int, String).self) { group in
            group.addTask { (0, try await batcher.submit(0, run: runs.a)) }
            try await EventStoreTests.waitUntil("the first batch") { !runs.log.withLock { $0.isEmpty } }
            for item in 1...4 {
                group.addTask { (item, try await batcher.submit(item, run: runs.b)) }
                try await Self.waitUntil(batcher, waiting: item)
            }
            runs.opener.yield()
            var answers: [Int: String] = [:]
            for try await (item, answer) in group { answers[item] = answer }
            #expect(answers == [0: "out0", 1: "out1", 2: "out2", 3: "out3", 4: "out4"])
        }
        #expect(runs.log.withLock { $0 } == expected)
    }

    /// A batch prefers the batcher's executor: it starts on the executor's event loop and comes back
    /// to it after every suspension, so a statement's answer resumes the batch where it arrived.
    @Test func aBatchRunsOnItsExecutorAcrossSuspensions() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let executor = EventLoopTaskExecutor(eventLoop: group.next())
        let onLoop = Mutex<[Bool]>([])
        let run: Batcher<Int, String>.Run = { items in
            onLoop.withLock { $0.append(executor.eventLoop.inEventLoop) }
            try await Task.sleep(for: .milliseconds(2))
            onLoop.withLock { $0.append(executor.eventLoop.inEventLoop) }
            await Task.yield()
            onLoop.withLock { $0.append(executor.eventLoop.inEventLoop) }
            return items.map { "out\($0)" }
        }
        let pinned = Batcher<Int, String>(maxBatchesInFlight: 1, maxBatchSize: 4, executor: executor)
        #expect(try await pinned.submit(1, run: run) == "out1")
        #expect(onLoop.withLock { $0 } == [true, true, true])

        onLoop.withLock { $0 = [] }
        let pooled = Batcher<Int, String>(maxBatchesInFlight: 1, maxBatchSize: 4)
        #expect(try await pooled.submit(2, run: run) == "out2")
        #expect(onLoop.withLock { $0 } == [false, false, false])
        try await group.shutdownGracefully()
    }
}
