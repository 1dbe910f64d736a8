import PostgresNIO

/// Waits, in PostgreSQL tests that hold a lock on purpose, until a store's transaction is blocked on it.
public enum LockWaiter {
    /// Points `connection` at the fixture's schema and, when `begin`, opens a transaction on it to
    /// hold locks in, as another writer would; returns its backend process id, the holder to wait on.
    public static func holder(_ connection: PostgresConnection, in fixture: StoreFixture, begin: Bool = true) async throws -> Int32 {
        _ = try await connection.query("SELECT set_config('search_path', \(fixture.location), false)", logger: TestDatabases.logger)
        if begin {
            _ = try await connection.query("BEGIN", logger: TestDatabases.logger)
        }
        return try await backend(of: connection)
    }

    /// The backend process id of `connection`, the holder to wait on.
    public static func backend(of connection: PostgresConnection) async throws -> Int32 {
        for try await pid in try await connection.query("SELECT pg_backend_pid()", logger: TestDatabases.logger).decode(Int32.self) {
            return pid
        }
        return 0
    }

    /// Takes on `connection`, if no other session holds it, the advisory lock the store takes for
    /// `key` (a stream's name with seed 1, `model/key` of a document with seed 0), until its
    /// transaction ends; whether it got it.
    public static func tryAdvisoryLock(_ connection: PostgresConnection, key: String, seed: Int) async throws -> Bool {
        let rows = try await connection.query("SELECT pg_try_advisory_xact_lock(hashtextextended(\(key), \(seed)))", logger: TestDatabases.logger)
        for try await taken in rows.decode(Bool.self) { return taken }
        return false
    }

    /// Polls `pg_blocking_pids` until some session waits for a lock backend `holder` holds (a row's
    /// or an advisory one); false after 30 s.
    public static func waitForWaiter(on holder: Int32, raw: PostgresClient) async throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            let rows = try await raw.query(
                "SELECT count(*)::int8 FROM pg_stat_activity WHERE \(holder) = ANY(pg_blocking_pids(pid))",
                logger: TestDatabases.logger
            )
            for try await waiting in rows.decode(Int64.self) where waiting > 0 { return true }
            try await Task.sleep(for: .milliseconds(20))
        }
        return false
    }
}
