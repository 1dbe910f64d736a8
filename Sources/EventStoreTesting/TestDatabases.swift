import EventStore
import Foundation
import Logging
import PostgresNIO
import SQLiteNIO

/// Which databases the tests run against, from the environment `scripts/test` sets up.
///
/// `SUBLEDGER_TEST_POSTGRES_URL` names a throwaway PostgreSQL server. Without it the PostgreSQL cases are
/// left out locally, but under `CI=true` they run and fail, so CI can never pass without PostgreSQL.
public enum TestDatabases {
    public static var postgresURL: String? {
        ProcessInfo.processInfo.environment["SUBLEDGER_TEST_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
    }

    public static var isCI: Bool {
        ["true", "1"].contains(ProcessInfo.processInfo.environment["CI"]?.lowercased() ?? "")
    }

    /// The dialects to run contract tests against.
    public static var dialects: [StorageDialect] {
        postgresURL != nil || isCI ? [.sqlite, .postgres] : [.sqlite]
    }

    public static let logger: Logger = {
        var logger = Logger(label: "subledger.tests")
        logger.logLevel = .warning
        return logger
    }()
}

/// Runs `body` with a fresh migrated store of `dialect`, its background work running, then cleans up.
public func withFreshStore(
    _ dialect: StorageDialect,
    now: @escaping @Sendable () -> Date = { Date() },
    _ body: @Sendable (StoreFixture) async throws -> Void
) async throws {
    switch dialect {
    case .sqlite:
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("subledger-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("events.sqlite").path
        let store = try await SQLiteEventStore.open(path: path, logger: TestDatabases.logger, now: now)
        try await store.migrate()
        do {
            try await body(StoreFixture(store: store, dialect: .sqlite, location: path, rawPostgres: nil))
        } catch {
            try? await store.shutdown()
            throw error
        }
        try await store.shutdown()
    case .postgres:
        guard let url = TestDatabases.postgresURL else { throw PostgreSQLRequired() }
        try await withPostgresSchema(url: url) { settings, schema, raw in
            let store = PostgresEventStore(settings: settings, logger: TestDatabases.logger, now: now)
            try await withRunning(store) {
                try await store.migrate()
                try await body(StoreFixture(store: store, dialect: .postgres, location: schema, rawPostgres: raw))
            }
        }
    }
}

/// Creates a private schema for one test and drops it afterwards.
public func withPostgresSchema(
    url: String,
    _ body: @Sendable (PostgresSettings, String, PostgresClient) async throws -> Void
) async throws {
    var settings = try PostgresSettings(url: url)
    let schema = "t_" + UUID().lowercaseString.replacingOccurrences(of: "-", with: "")
    let raw = PostgresClient(
        configuration: .init(host: settings.host, port: settings.port, username: settings.username,
                             password: settings.password, database: settings.database, tls: .disable),
        backgroundLogger: TestDatabases.logger
    )
    try await raw.whileRunning {
        _ = try await raw.query(PostgresQuery(unsafeSQL: "CREATE SCHEMA \(schema)"), logger: TestDatabases.logger)
        settings.searchPath = schema
        // Every suite runs at once on two cores: a test that queues 24 tasks on its pool of 10 while
        // the others load PostgreSQL once waited more than the default 5 s for a connection in CI
        // (2026-11-26), and failed as storage_unavailable. No test here is about that wait; the
        // outage tests set their own.
        settings.acquireTimeout = .seconds(60)
        do {
            try await body(settings, schema, raw)
        } catch {
            _ = try? await raw.query(PostgresQuery(unsafeSQL: "DROP SCHEMA \(schema) CASCADE"), logger: TestDatabases.logger)
            throw error
        }
        _ = try await raw.query(PostgresQuery(unsafeSQL: "DROP SCHEMA \(schema) CASCADE"), logger: TestDatabases.logger)
    }
}

/// Keeps a store's background work running around `body`, and returns what `body` returns.
@discardableResult
public func withRunning<T: Sendable>(_ store: any EventStore, _ body: @Sendable () async throws -> T) async throws -> T {
    try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { try await store.run() }
        defer { group.cancelAll() }
        return try await body()
    }
}

/// Returns once a PostgreSQL store's change relay listens: it raises the store's change signal once
/// as its LISTEN connects, so a test that counts the signal's rises waits for that one first.
public func waitUntilListening(_ store: any EventStore) async throws {
    await store.changes.wait(after: 0, timeout: .seconds(30))
    if store.changes.generation == 0 { throw EventStoreError(.databaseError, "the change relay never listened") }
}

/// Builds a test event with a JSON body.
public func event(
    _ type: String = "test.happened",
    _ body: [String: any Sendable] = [:],
    dedupeKey: String? = nil,
    id: UUID = UUID()
) -> NewEvent {
    let data = (try? JSONSerialization.data(withJSONObject: body, options: [.sortedKeys])) ?? Data("{}".utf8)
    return NewEvent(eventID: id, type: type, data: data, metadata: Data(#"{"source":"test"}"#.utf8), dedupeKey: dedupeKey)
}

extension Error {
    /// The store error code, if this is a store error.
    public var storeCode: EventStoreError.Code? { (self as? EventStoreError)?.code }
}

/// Reads the global log from `cursor` until at least `count` events have been seen or `timeout` passes.
///
/// PostgreSQL's reader gate hides events while any older transaction in the cluster is open, and tests
/// run in parallel, so a test waits for its events instead of expecting them on the first read.
public func readLog(
    _ store: any EventStore,
    after cursor: EventCursor = .start,
    atLeast count: Int,
    pageSize: Int = 100,
    timeout: Duration = .seconds(30)
) async throws -> EventPage {
    var events: [RecordedEvent] = []
    var next = cursor
    let deadline = ContinuousClock.now + timeout
    while true {
        let page = try await store.readAll(after: next, limit: pageSize)
        events += page.events
        next = page.next
        if events.count >= count && page.events.isEmpty { break }
        if ContinuousClock.now >= deadline { break }
        if page.events.isEmpty { try await Task.sleep(for: .milliseconds(10)) }
    }
    return EventPage(events: events, next: next)
}
