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

    /// Runs `body`, a part of a test while `holder` holds its locks; if it throws, the holder's
    /// transaction is rolled back and its session locks released before the error goes on. A writer
    /// blocked on them would otherwise keep its task group, and every test waiting on the same
    /// database-wide lock, waiting until the run's watchdog.
    public static func releasing<T>(_ holder: PostgresConnection, _ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch {
            _ = try? await holder.query("ROLLBACK", logger: TestDatabases.logger)
            _ = try? await holder.query("SELECT pg_advisory_unlock_all()", logger: TestDatabases.logger)
            throw error
        }
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
    /// or an advisory one); false after 30 s. Only sessions waiting on a lock are asked about: each
    /// call takes the lock manager for a moment, which every other test's lock requests then wait on.
    public static func waitForWaiter(on holder: Int32, raw: PostgresClient) async throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            // `OFFSET 0` keeps the filter below the call, so it is made for waiting sessions only.
            let rows = try await raw.query(
                """
                SELECT count(*)::int8 FROM (
                    SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND pid <> \(holder) OFFSET 0
                ) AS waiting WHERE \(holder) = ANY(pg_blocking_pids(pid))
                """,
                logger: TestDatabases.logger
            )
            for try await waiting in rows.decode(Int64.self) where waiting > 0 { return true }
            try await Task.sleep(for: .milliseconds(20))
        }
        return false
    }
}
