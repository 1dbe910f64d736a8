import EventStore
import EventStoreTesting

/// Runs `body` while an append of `event` to `stream` has inserted its event but not committed (its
/// write transaction waits after it), then lets it commit and returns `body`'s result: how
/// the PostgreSQL tests make a transaction with a low position commit late.
func whileAnAppendIsOpen<T: Sendable>(
    _ store: any EventStore, to stream: String, _ event: NewEvent, _ body: () async throws -> T
) async throws -> T {
    let inserted = AsyncStream<Void>.makeStream()
    let release = AsyncStream<Void>.makeStream()
    return try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask {
            try await store.transaction { transaction in
                _ = try await transaction.append(to: stream, [event], expectedVersion: .any)
                inserted.continuation.yield()
                for await _ in release.stream { break }
            }
        }
        for await _ in inserted.stream { break }
        defer { release.continuation.yield() }
        let result = try await body()
        release.continuation.yield()
        try await group.waitForAll()
        return result
    }
}
