import EventStore
import Foundation
import Logging

/// Opens the store a URL names, keeps its background work running around `body`, and closes it,
/// also when `body` fails (an unknown migration, tables that are not there), so the command reports
/// that failure rather than a connection left open.
enum StoreRunner {
    /// The SQLite file a command that needs existing data was pointed at does not exist; opening it
    /// would have created an empty one (and a mistyped path would then be "migrated").
    ///
    /// It names the file in full and where its path came from: run in the wrong directory, a command
    /// falls back on the default path, and migrating there would make an empty ledger that passes
    /// every check.
    struct MissingDatabase: Error, CustomStringConvertible {
        /// The file's absolute path.
        var file: String
        var origin: String
        var description: String {
            "no SQLite database at \(file) (its path is \(origin)): "
                + "check database.url or SUBLEDGER_DATABASE_URL and the directory the command runs in; "
                + (SQLiteEventStore.directoryProblem(of: file) ?? "subledger migrate would create a new, empty database there")
        }
    }

    /// `mustExist`: the command works on data already there (audit, replay), so it must not create
    /// a SQLite file that is not there; `origin` says where the URL came from if it is not.
    static func withStore<T: Sendable>(
        _ url: DatabaseURL,
        logger: Logger,
        mustExist: Bool = false,
        origin: String,
        _ body: @Sendable (any EventStore) async throws -> T
    ) async throws -> T {
        if mustExist, let file = url.sqliteFile, !FileManager.default.fileExists(atPath: file) {
            throw MissingDatabase(file: file, origin: origin)
        }
        try await DatabaseWait.untilReachable(url, logger: logger)
        let store = try await EventStoreFactory.open(url, logger: logger)
        let result: Result<T, any Error>
        do {
            result = .success(try await withThrowingTaskGroup(of: T?.self) { group in
                group.addTask {
                    try await store.run()
                    return nil
                }
                defer { group.cancelAll() }
                return try await body(store)
            })
        } catch {
            result = .failure(await StorageDiagnosis.explain(error, url: url))
        }
        do {
            try await store.shutdown()
        } catch {
            // When the body failed, its failure is the one to report.
            if case .success = result { throw error }
        }
        return try result.get()
    }
}
