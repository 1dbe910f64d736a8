import EventStore
import EventStoreTesting
import Foundation
import Testing

/// Stopping a store must always return, whatever its background work was doing at that moment.
@Suite("PostgreSQL: stopping the store")
struct PostgresShutdownTests {
    /// An append wakes the change relay, which then sends NOTIFY. When that NOTIFY went out on a pooled
    /// connection while cancellation closed the pool, postgres-nio never answered it and `run()` never
    /// returned: the CI run hung. Stopping right after appending, many times over, aims at that window;
    /// it is narrow, so alone this test hits it only sometimes (the full suite on one core did within a
    /// few runs), and a hang here is caught by `scripts/test`'s time limit.
    @Test(.enabled(if: TestDatabases.dialects.contains(.postgres)))
    func stoppingRightAfterAnAppendAlwaysReturns() async throws {
        let rounds = 60
        guard let url = TestDatabases.postgresURL else { throw PostgreSQLRequired() }
        try await withPostgresSchema(url: url) { settings, _, _ in
            let first = PostgresEventStore(settings: settings, logger: TestDatabases.logger)
            try await withRunning(first) { try await first.migrate() }
            var generator = SystemRandomNumberGenerator()
            for round in 0..<rounds {
                let store = PostgresEventStore(settings: settings, logger: TestDatabases.logger)
                let pause = Int.random(in: 0...2_000, using: &generator)
                try await withRunning(store) {
                    for index in 0..<3 {
                        _ = try await store.append(to: "round-\(round)-\(index)", event(), expectedVersion: .noStream)
                    }
                    // Stop at a different point of the relay's NOTIFY each round.
                    try await Task.sleep(for: .microseconds(pause))
                }
            }
            let check = PostgresEventStore(settings: settings, logger: TestDatabases.logger)
            let count = try await withRunning(check) { try await readLog(check, atLeast: 3 * rounds).events.count }
            #expect(count == 3 * rounds)
        }
    }
}
