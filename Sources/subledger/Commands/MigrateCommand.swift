import ArgumentParser
import EventStore
import Foundation
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
        // Said when migrate makes the file: run in the wrong directory, it starts an empty ledger.
        let isNew = configuration.database.namesMissingSQLiteFile
        // Before it is opened, which makes an empty -wal file.
        let hadWAL = configuration.database.sqliteFile.map(SchemaCheck.hasWAL) ?? true
        let applied = try await StoreRunner.withStore(configuration.database, logger: logger, origin: configuration.databaseOrigin) { store in
            try await store.migrate()
        }
        // With where its path came from: run in the wrong directory, the default path names a new
        // file there, and this line is the one chance to see that before it is used.
        if isNew { print("\(configuration.database.located): created (no file was there; its path is \(configuration.databaseOrigin))") }
        if applied.isEmpty {
            print("\(configuration.database.located): schema is up to date")
        } else {
            print("\(configuration.database.located): \(applied.count) migration(s) applied")
            for migration in applied { print("applied \(migration.name)") }
        }
        if !isNew, !hadWAL, applied.contains(where: { $0.version == 1 }) {
            // A file that was there with no event tables: a live database copied without its -wal
            // file is one, and it is now an empty ledger. Said on standard error, where it is seen.
            printError("""
                note: \(configuration.database.located) was there but held no event tables; if it is a copy of a live \
                database made without its -wal file, it is now an empty ledger: copy the database again with its -wal \
                file (or with sqlite3's .backup)
                """)
        }
    }
}
