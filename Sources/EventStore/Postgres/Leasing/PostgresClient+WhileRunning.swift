import PostgresNIO

extension PostgresClient {
    /// Runs `body` while this client's `run()` keeps its pool going, and stops the pool after.
    ///
    /// `body` starts only once `run()` has begun, so its first statement never reaches the pool
    /// first (postgres-nio warns about that; see `PoolStart`). For short-lived clients, such as
    /// one that creates a schema or a database.
    package func whileRunning<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        let started = PoolStart()
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await started.open { await self.run() } }
            defer { group.cancelAll() }
            try await started.wait()
            return try await body()
        }
    }
}
