import EventStore
import EventStoreTesting
import Logging
import Testing
@testable import subledger

/// Before a command opens its pool it waits for PostgreSQL to accept a connection: settings the
/// server refuses fail at once with its answer, a server not up yet is waited for (one log line, not
/// one per attempt), and one that stays away fails after `acquire_timeout` saying why.
@Suite("Waiting for PostgreSQL before a command starts")
struct DatabaseWaitTests {
    /// Runs `body` with settings that reach the test server through a relay, down at first.
    static func throughRelay(acquireTimeout: Duration, _ body: (PostgresSettings, TCPRelay, CapturedLog) async throws -> Void) async throws {
        guard let url = TestDatabases.postgresURL else { throw PostgreSQLRequired() }
        let target = try PostgresSettings(url: url)
        try await TCPRelay.run(to: target.host, port: target.port, up: false) { relay in
            var settings = target
            settings.host = "127.0.0.1"
            settings.port = relay.port
            settings.acquireTimeout = acquireTimeout
            try await body(settings, relay, CapturedLog())
        }
    }

    @Test(.enabled(if: TestDatabases.dialects.contains(.postgres)))
    func aServerThatComesUpDuringTheWaitIsUsed() async throws {
        try await Self.throughRelay(acquireTimeout: .seconds(60)) { settings, relay, lines in
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await DatabaseWait.untilReachable(.postgres(settings), logger: lines.logger) }
                // Up only once an attempt has failed, so the wait is what is tested. Bounded, so a
                // wait that failed early fails the test instead of hanging it.
                let deadline = ContinuousClock.now + .seconds(30)
                while !lines.lines.contains(where: { $0.hasPrefix("notice waiting for PostgreSQL") }) && ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(10))
                }
                relay.setUp(true)
                try await group.waitForAll()
            }
            #expect(lines.lines.filter { $0.contains("waiting for PostgreSQL") }.count == 1, "\(lines.lines)")
            #expect(lines.lines.last?.hasPrefix("info PostgreSQL accepted a connection") == true, "\(lines.lines)")
        }
    }

    @Test(.enabled(if: TestDatabases.dialects.contains(.postgres)))
    func settingsTheServerRefusesFailAtOnceWithItsAnswer() async throws {
        guard let url = TestDatabases.postgresURL else { throw PostgreSQLRequired() }
        var settings = try PostgresSettings(url: url)
        settings.database = "subledger_no_such_database"
        // Were the refusal waited out, the test would take this long and then fail on `waited`.
        settings.acquireTimeout = .seconds(30)
        let lines = CapturedLog()
        let error = await #expect(throws: DatabaseWait.Unreachable.self) {
            try await DatabaseWait.untilReachable(.postgres(settings), logger: lines.logger)
        }
        #expect(error?.waited == nil)
        #expect(error?.problem.isPermanent == true)
        #expect(
            error?.description == #"storage_unavailable: cannot connect to PostgreSQL at \#(settings.host):\#(settings.port): PostgreSQL answered: database "subledger_no_such_database" does not exist (3D000); check database.url (SUBLEDGER_DATABASE_URL)"#
        )
        #expect(lines.lines.isEmpty, "\(lines.lines)")
    }

    @Test(.enabled(if: TestDatabases.dialects.contains(.postgres)))
    func aServerThatStaysAwayFailsAfterAcquireTimeoutSayingWhy() async throws {
        try await Self.throughRelay(acquireTimeout: .seconds(1)) { settings, relay, lines in
            let start = ContinuousClock.now
            let error = await #expect(throws: DatabaseWait.Unreachable.self) {
                try await DatabaseWait.untilReachable(.postgres(settings), logger: lines.logger)
            }
            // It tried for the whole second, not once.
            #expect(ContinuousClock.now - start >= .seconds(1))
            #expect(error?.waited == .seconds(1))
            #expect(error?.problem.isPermanent == false)
            #expect(error?.description.hasPrefix("storage_unavailable: no PostgreSQL connection at 127.0.0.1:\(relay.port) within 1.0 seconds (acquire_timeout): ") == true, "\(String(describing: error))")
            // One progress line at most: on a loaded machine the first probe can take the whole
            // second, and the command then fails without having waited (seen once in a full run).
            #expect(lines.lines.filter { $0.contains("waiting for PostgreSQL") }.count <= 1, "\(lines.lines)")
        }
    }

}
