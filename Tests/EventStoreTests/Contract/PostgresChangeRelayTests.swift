@testable import EventStore
import EventStoreTesting
import Foundation
import Testing

/// The relay carries append hints between processes with LISTEN/NOTIFY. These tests watch a reader
/// store's `changes` signal, which only the relays raise here (nothing appends through the reader).
@Suite("PostgreSQL: change relay")
struct PostgresChangeRelayTests {
    /// An append made while a process's relay was not connected (at start, or after the connection
    /// was lost) was never announced: the relay announced only appends it saw after connecting. A
    /// follower elsewhere that had already caught up then waited a whole poll interval; a CI run's
    /// follower with a 600 s interval timed out.
    @Test(.enabled(if: TestDatabases.dialects.contains(.postgres)))
    func anAppendMadeBeforeTheRelayConnectedIsAnnouncedOnceItIs() async throws {
        guard let url = TestDatabases.postgresURL else { throw PostgreSQLRequired() }
        try await withPostgresSchema(url: url) { settings, _, _ in
            let reader = PostgresEventStore(settings: settings, logger: TestDatabases.logger)
            try await withRunning(reader) {
                try await waitUntilListening(reader)
                let before = reader.changes.generation
                // The other process appended before its relay was up.
                let localAppends = ChangeSignal()
                localAppends.notify()
                let relay = PostgresChangeRelay(
                    settings: settings, changes: ChangeSignal(), localAppends: localAppends,
                    retryInterval: .seconds(1), logger: TestDatabases.logger
                )
                await withDiscardingTaskGroup { group in
                    group.addTask { await relay.run() }
                    await reader.changes.wait(after: before, timeout: .seconds(20))
                    group.cancelAll()
                }
                #expect(reader.changes.generation > before)
            }
        }
    }

    /// NOTIFY reaches every session of the database: a deployment in another schema (or another test)
    /// must not wake this one's readers, while its own appends still do.
    @Test(.enabled(if: TestDatabases.dialects.contains(.postgres)))
    func hintsFromAnotherSchemaDoNotWakeReaders() async throws {
        guard let url = TestDatabases.postgresURL else { throw PostgreSQLRequired() }
        try await withPostgresSchema(url: url) { ours, _, _ in
            try await withPostgresSchema(url: url) { theirs, _, _ in
                let reader = PostgresEventStore(settings: ours, logger: TestDatabases.logger)
                let writer = PostgresEventStore(settings: ours, logger: TestDatabases.logger)
                let neighbour = PostgresEventStore(settings: theirs, logger: TestDatabases.logger)
                // The neighbour's own reader: its waking shows the neighbour's hint was sent and heard.
                let neighboursReader = PostgresEventStore(settings: theirs, logger: TestDatabases.logger)
                try await withRunning(reader) {
                    try await withRunning(writer) {
                        try await withRunning(neighbour) {
                            try await withRunning(neighboursReader) {
                                try await writer.migrate()
                                try await neighbour.migrate()
                                for store in [reader, writer, neighbour, neighboursReader] { try await waitUntilListening(store) }
                                let before = reader.changes.generation
                                let neighboursBefore = neighboursReader.changes.generation

                                _ = try await neighbour.append(to: "s", [event("theirs")], expectedVersion: .any)
                                await neighboursReader.changes.wait(after: neighboursBefore, timeout: .seconds(20))
                                #expect(neighboursReader.changes.generation > neighboursBefore, "the neighbour's hint never came")
                                // The same NOTIFY reaches every session; a moment more for ours to act on it.
                                await reader.changes.wait(after: before, timeout: .milliseconds(500))
                                #expect(reader.changes.generation == before, "another schema's append woke the reader")

                                _ = try await writer.append(to: "s", [event("ours")], expectedVersion: .any)
                                await reader.changes.wait(after: before, timeout: .seconds(20))
                                #expect(reader.changes.generation > before)
                            }
                        }
                    }
                }
            }
        }
    }

    /// A store configured without a search path sends and hears hints with an empty payload, as
    /// before payloads were named: it wakes, and is woken by, every deployment on the database.
    @Test(.enabled(if: TestDatabases.dialects.contains(.postgres)))
    func aRelayWithoutASearchPathHearsEveryHint() async throws {
        guard let url = TestDatabases.postgresURL else { throw PostgreSQLRequired() }
        try await withPostgresSchema(url: url) { settings, _, _ in
            var unnamed = settings
            unnamed.searchPath = nil
            let reader = PostgresEventStore(settings: unnamed, logger: TestDatabases.logger)
            let writer = PostgresEventStore(settings: settings, logger: TestDatabases.logger)
            try await withRunning(reader) {
                try await withRunning(writer) {
                    try await writer.migrate()
                    for store in [reader, writer] { try await waitUntilListening(store) }
                    let before = reader.changes.generation
                    _ = try await writer.append(to: "s", [event("somewhere")], expectedVersion: .any)
                    await reader.changes.wait(after: before, timeout: .seconds(20))
                    #expect(reader.changes.generation > before)
                }
            }
        }
    }
}
