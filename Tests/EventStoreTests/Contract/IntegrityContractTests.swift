import EventStore
import EventStoreTesting
import Foundation
import Testing

@Suite("Event store contract: immutability and tamper evidence")
struct IntegrityContractTests {
    @Test(arguments: TestDatabases.dialects)
    func theDatabaseRefusesUpdateDeleteAndTruncateOnEvents(_ dialect: StorageDialect) async throws {
        try await withFreshStore(dialect) { (fixture: StoreFixture) async throws in
            _ = try await fixture.store.append(to: "s", [event(), event()], expectedVersion: .any)
            var statements = [
                "UPDATE events SET type = 'rewritten'",
                "DELETE FROM events WHERE stream_version = 2",
                "DELETE FROM events",
            ]
            if dialect == .postgres { statements.append("TRUNCATE events") }
            for statement in statements {
                // Refused by the immutability triggers, not by anything else a second connection may meet.
                await #expect("\(statement) must be refused by the triggers") {
                    try await fixture.rawExecute(statement)
                } throws: { String(reflecting: $0).contains("subledger events are immutable") }
            }
            let events = try await fixture.store.readStream("s")
            #expect(events.map(\.type) == ["test.happened", "test.happened"])
            #expect(try await fixture.store.audit(progress: nil).isIntact)
        }
    }

    @Test(arguments: TestDatabases.dialects)
    func auditFindsTheFirstBrokenLinkAfterARowIsEditedBehindTheTrigger(_ dialect: StorageDialect) async throws {
        try await withFreshStore(dialect) { (fixture: StoreFixture) async throws in
            for index in 1...3 {
                _ = try await fixture.store.append(to: "victim", event("e", ["amount": index * 100]), expectedVersion: .any)
                _ = try await fixture.store.append(to: "bystander", event("e", ["amount": index]), expectedVersion: .any)
            }
            let clean = try await fixture.store.audit(progress: nil)
            #expect(clean.streams == 2 && clean.events == 6 && clean.breaks.isEmpty)
            #expect(clean.checkpoint.streams.mapValues(\.version) == ["victim": 3, "bystander": 3])

            // An operator with database rights disables the guard and rewrites history.
            switch dialect {
            case .postgres:
                try await fixture.rawExecute("""
                    ALTER TABLE events DISABLE TRIGGER events_immutable_rows;
                    UPDATE events SET data = '{"amount": 999}' WHERE stream_id = 'victim' AND stream_version = 2;
                    ALTER TABLE events ENABLE TRIGGER events_immutable_rows;
                    """)
            case .sqlite:
                try await fixture.rawExecute("""
                    DROP TRIGGER events_immutable_update;
                    UPDATE events SET data = '{"amount":999}' WHERE stream_id = 'victim' AND stream_version = 2
                    """)
            }
            let report = try await fixture.store.audit(progress: nil)
            #expect(report.events == 6)
            #expect(report.breaks.count == 1)
            let chainBreak = try #require(report.breaks.first)
            #expect(chainBreak.streamID == "victim")
            #expect(chainBreak.streamVersion == 2)
            #expect(chainBreak.reason == .hashMismatch)
        }
    }

    /// The walk goes by events, so a stream whose only event was deleted, or an event moved to a
    /// stream id with no head, left no broken link to find: both are reported now.
    @Test(arguments: TestDatabases.dialects)
    func auditFindsAStreamWhoseEventsWereDeletedAndAnEventMovedToAnotherStream(_ dialect: StorageDialect) async throws {
        try await withFreshStore(dialect) { (fixture: StoreFixture) async throws in
            for stream in ["deleted", "moved", "intact"] {
                _ = try await fixture.store.append(to: stream, event("e", ["stream": stream]), expectedVersion: .any)
            }
            let edits = "DELETE FROM events WHERE stream_id = 'deleted'; UPDATE events SET stream_id = 'elsewhere' WHERE stream_id = 'moved'"
            switch dialect {
            case .postgres:
                try await fixture.rawExecute("""
                    ALTER TABLE events DISABLE TRIGGER events_immutable_rows;
                    \(edits);
                    ALTER TABLE events ENABLE TRIGGER events_immutable_rows;
                    """)
            case .sqlite:
                try await fixture.rawExecute("DROP TRIGGER events_immutable_update; DROP TRIGGER events_immutable_delete; \(edits)")
            }
            let report = try await fixture.store.audit(progress: nil)
            #expect(!report.isIntact)
            #expect(report.events == 2)
            #expect(report.breaks.map(\.streamID) == ["deleted", "elsewhere", "moved"])
            #expect(report.breaks.map(\.reason) == [.eventsMissing, .headMissing, .eventsMissing])
            #expect(report.breaks.first?.description == "stream deleted: events_missing (its head says version 1, no event is stored)")
        }
    }

    /// SQLite types a column loosely: a row edited to hold an id that is not a UUID is reported as a
    /// broken link of its stream, and the walk goes on to check the other streams.
    @Test(.enabled(if: TestDatabases.dialects.contains(.sqlite)))
    func auditReportsAnUnreadableRowAndChecksTheOtherStreams() async throws {
        try await withFreshStore(.sqlite) { (fixture: StoreFixture) async throws in
            for stream in ["a-edited", "b-intact", "c-edited-later"] {
                _ = try await fixture.store.append(to: stream, [event(), event()], expectedVersion: .any)
            }
            try await fixture.rawExecute("""
                DROP TRIGGER events_immutable_update;
                UPDATE events SET event_id = 'not-a-uuid' WHERE stream_id = 'a-edited' AND stream_version = 1;
                UPDATE events SET data = '{"amount":1}' WHERE stream_id = 'c-edited-later' AND stream_version = 2
                """)
            let report = try await fixture.store.audit(progress: nil)
            #expect(report.streams == 3 && report.events == 6)
            #expect(report.breaks.map(\.streamID) == ["a-edited", "c-edited-later"])
            #expect(report.breaks.map(\.reason) == [.unreadableRow, .hashMismatch])
            #expect(report.breaks.first?.description == "stream a-edited version 1 (position 1): unreadable_row (its columns cannot be read as an event: it was written behind the schema's back)")
        }
    }

    @Test(arguments: TestDatabases.dialects)
    func auditReportsProgress(_ dialect: StorageDialect) async throws {
        try await withFreshStore(dialect) { (fixture: StoreFixture) async throws in
            _ = try await fixture.store.append(to: "s", [event(), event(), event()], expectedVersion: .any)
            let last = LastProgress()
            _ = try await fixture.store.audit { last.set($0) }
            #expect(last.value?.events == 3)
            #expect(last.value?.totalEvents == 3)
        }
    }
}

/// Holds the last progress report an audit made.
final class LastProgress: Sendable {
    private let storage = Mutex<AuditProgress?>(nil)
    var value: AuditProgress? { storage.withLock { $0 } }
    func set(_ progress: AuditProgress) { storage.withLock { $0 = progress } }
}

import Synchronization
