import EventStore
import Foundation
import Logging

/// Opens the store a URL names, keeps its background work running around `body`, and closes it,
/// also when `body` fails (an unknown migration, tables that are not there), so the command reports
/// that failure rather than a connection left open.
enum StoreRunner {
    /// The SQLite file a command that needs existing data was pointed at does not exist; opening it
    /// would have created an empty one (and a mistyped path would then be "migrated").
    struct MissingDatabase: Error, CustomStringConvertible {
        var path: String
        var description: String {
            "no SQLite database at \(path): check database.url (SUBLEDGER_DATABASE_URL); subledger migrate creates one"
        }
    }

    /// `mustExist`: the command works on data already there (audit, replay), so it must not create
    /// a SQLite file that is not there.
    static func withStore<T: Sendable>(
        _ url: DatabaseURL,
        logger: Logger,
        mustExist: Bool = false,
        _ body: @Sendable (any EventStore) async throws -> T
    ) async throws -> T {
        if mustExist, case .sqlite(let path) = url, !FileManager.default.fileExists(atPath: path) {
            throw MissingDatabase(path: path)
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
