import ArgumentParser
import EventStore
import Logging

/// `subledger migrate`: applies pending numbered migrations and reports what it did.
struct MigrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Apply pending database migrations (Migrations/<dialect>/NNNN_name.sql)."
    )

    @OptionGroup var options: ConfigOptions

    func run() async throws {
        let configuration = try options.load(needsSecrets: false)
        let logger = ProcessLogger.make(level: configuration.logLevel)
        let applied = try await StoreRunner.withStore(configuration.database, logger: logger) { store in
            try await store.migrate()
        }
        if applied.isEmpty {
            print("\(configuration.database.located): schema is up to date")
        } else {
            for migration in applied { print("applied \(migration.name)") }
            print("\(configuration.database.located): \(applied.count) migration(s) applied")
        }
    }
}
