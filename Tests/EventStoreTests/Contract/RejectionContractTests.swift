import EventStore
import EventStoreTesting
import Foundation
import PostgresNIO
import SQLiteNIO
import Testing

/// Refused webhook bodies are kept for operators, newest first, in a table that stays bounded.
@Suite("Event store contract: rejections")
struct RejectionContractTests {
    @Test(arguments: TestDatabases.dialects)
    func rejectionsAreKeptNewestFirstAndTrimmedToTheLimit(_ dialect: StorageDialect) async throws {
        try await withFreshStore(dialect) { (fixture: StoreFixture) async throws in
            // The table is filled to the limit directly (through the store it took half a minute),
            // then a hundred more go through the store, which must trim the oldest.
            try await Self.seed(rejectionLimit, into: fixture)
            for index in 0..<100 {
                try await fixture.store.recordRejection(source: "POST /hook", code: "invalid_signature", detail: "new-\(index)", body: Data("{}".utf8), requestID: "r-\(index)")
            }
            let kept = try await fixture.store.rejections(limit: rejectionLimit + 100)
            #expect(kept.count == rejectionLimit)
            #expect(kept.first?.detail == "new-99")
            #expect(kept.last?.detail == "seed-100")
            // Each keeps the request id it was answered with; rows written without one (as before
            // the column existed) read back as nil.
            #expect(kept.first?.requestID == "r-99")
            #expect(kept.last?.requestID == nil)
            #expect(try await fixture.store.rejections(limit: 2).map(\.detail) == ["new-99", "new-98"])
        }
    }

    /// The bound holds after every refusal, on both stores. PostgreSQL trimmed only when a row's id
    /// was a multiple of a hundred, so the table ran up to 99 rows past its bound, and a gap in the
    /// sequence that skipped such an id (an insert rolled back) put the trim off by a hundred more.
    /// (SQLite's ids have no gaps: its sequence rolls back with the insert.)
    @Test(arguments: TestDatabases.dialects)
    func theBoundHoldsAfterEveryRefusalAndPastAGapInTheIds(_ dialect: StorageDialect) async throws {
        try await withFreshStore(dialect) { (fixture: StoreFixture) async throws in
            try await Self.seed(rejectionLimit, into: fixture)
            try await fixture.store.recordRejection(source: "POST /hook", code: "invalid_signature", detail: "next", body: Data("{}".utf8), requestID: nil)
            #expect(try await fixture.store.rejections(limit: rejectionLimit + 100).count == rejectionLimit)
            if dialect == .postgres {
                // The next id is one past a multiple of a hundred: the hundredth was skipped.
                let raw = try #require(fixture.rawPostgres)
                _ = try await raw.query(PostgresQuery(unsafeSQL: """
                    SELECT setval(pg_get_serial_sequence('\(fixture.location).rejections', 'id'), \(rejectionLimit + 200))
                    """), logger: TestDatabases.logger)
            }
            for index in 0..<3 {
                try await fixture.store.recordRejection(source: "POST /hook", code: "invalid_signature", detail: "after-\(index)", body: Data("{}".utf8), requestID: nil)
            }
            // The bound is on ids: rows whose id is more than the limit below the newest go, so past
            // a gap of 200 ids the table holds 199 fewer (the old trim kept 10,004 here).
            let kept = try await fixture.store.rejections(limit: rejectionLimit + 100)
            #expect(kept.count == (dialect == .postgres ? rejectionLimit - 199 : rejectionLimit))
            #expect(kept.first?.detail == "after-2")
        }
    }

    /// Anyone can post a webhook, so a refused body may hold anything, a NUL included (a V1 `bid` of
    /// `"\u0000"` is repeated in the detail). PostgreSQL's text cannot hold NUL; the rejection is still
    /// kept, with U+FFFD in its place, and bytes that are not UTF-8 read back as U+FFFD on both stores.
    @Test(arguments: TestDatabases.dialects)
    func aRejectionWithNULOrInvalidUTF8IsStillKept(_ dialect: StorageDialect) async throws {
        try await withFreshStore(dialect) { (fixture: StoreFixture) async throws in
            let body = Data(#"{"bid":""#.utf8) + Data([0x00, 0xFF]) + Data(#""}"#.utf8)
            try await fixture.store.recordRejection(source: "POST /hook", code: "unknown_app", detail: "bundle id \u{0} is not configured", body: body, requestID: nil)
            let kept = try #require(try await fixture.store.rejections(limit: 1).first)
            #expect(kept.code == "unknown_app")
            #expect(kept.detail == "bundle id \u{FFFD} is not configured")
            #expect(kept.body == "{\"bid\":\"\u{FFFD}\u{FFFD}\"}")
        }
    }

    /// Unauthenticated clients choose the body, so only its start is kept: the table stays bounded in
    /// bytes as well as rows.
    @Test(arguments: TestDatabases.dialects)
    func onlyTheStartOfALongRefusedBodyIsKept(_ dialect: StorageDialect) async throws {
        try await withFreshStore(dialect) { (fixture: StoreFixture) async throws in
            let body = Data(repeating: UInt8(ascii: "x"), count: 1 << 20)
            try await fixture.store.recordRejection(source: "POST /hook", code: "invalid_format", detail: "too long", body: body, requestID: nil)
            let kept = try #require(try await fixture.store.rejections(limit: 1).first)
            #expect(kept.body.utf8.count == 64 << 10)
        }
    }

    /// U+FFFD takes three bytes, so bytes that are not UTF-8 grow as they are kept; the bound is on
    /// what is kept (a security walkthrough stored 192 KiB a row from 64 KiB of 0xFF, about 1.9 GiB
    /// in the full table instead of the documented 640 MiB).
    @Test(arguments: TestDatabases.dialects)
    func aRefusedBodyOfBytesThatAreNotUTF8IsKeptWithinTheSameBound(_ dialect: StorageDialect) async throws {
        try await withFreshStore(dialect) { (fixture: StoreFixture) async throws in
            try await fixture.store.recordRejection(
                source: "POST /hook", code: "malformed_body", detail: "not UTF-8", body: Data(repeating: 0xFF, count: 1 << 20), requestID: nil
            )
            let kept = try #require(try await fixture.store.rejections(limit: 1).first)
            // Whole replacement characters only: 21,845 of them fill 65,535 of the 65,536 bytes.
            #expect(kept.body.utf8.count == 65_535)
            #expect(kept.body.unicodeScalars.allSatisfy { $0 == "\u{FFFD}" })
        }
    }

    /// Inserts `count` rejections with details `seed-0`... in one statement.
    static func seed(_ count: Int, into fixture: StoreFixture) async throws {
        switch fixture.dialect {
        case .postgres:
            let raw = try #require(fixture.rawPostgres)
            _ = try await raw.query(PostgresQuery(unsafeSQL: """
                INSERT INTO \(fixture.location).rejections (source, code, detail, body)
                SELECT 'seed', 'seed', 'seed-' || g, '{}' FROM generate_series(0, \(count - 1)) g
                """), logger: TestDatabases.logger)
        case .sqlite:
            let connection = try await SQLiteConnection.open(storage: .file(path: fixture.location))
            _ = try await connection.query("""
                WITH RECURSIVE g(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM g WHERE n < \(count - 1))
                INSERT INTO rejections (received_at, source, code, detail, body) SELECT 0, 'seed', 'seed', 'seed-' || n, '{}' FROM g
                """)
            try await connection.close()
        }
    }
}
