import ArgumentParser
import EventStore
import Ledger

/// `subledger replay`: rebuilds every read model from the events, or with `--check` compares.
struct ReplayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Rebuild the read models from the events and swap them in (--check: compare only, exit 1 on any difference).",
        discussion: """
            Run it while no ingestion runs (stop subledger serve first): if events are appended during the fold, \
            replay changes nothing and exits 1, and a check warns that its differences may be theirs. On PostgreSQL \
            the swap waits at most three times 1 s for the read models' lock; if a long transaction holds them, \
            replay changes nothing and exits 1.
            """
    )

    @OptionGroup var options: ConfigOptions

    @Flag(name: .long, help: "Rebuild alongside and report every difference from the live read models; change nothing.")
    var check = false

    func run() async throws {
        let configuration = try options.load(needsSecrets: false)
        let logger = ProcessLogger.make(level: configuration.logLevel)
        let progress = ProgressPrinter(label: check ? "replay --check" : "replay")
        // A failed fold ends the line too, so its error starts on a fresh one.
        defer { progress.finish() }
        let check = self.check
        // Both need the database to be there: a mistyped SQLite path must not become a new, empty one.
        let report = try await StoreRunner.withStore(configuration.database, logger: logger, mustExist: true, origin: configuration.databaseOrigin) { store in
            if check {
                // A check changes nothing, so it needs no write rights: a schema behind is reported.
                try await SchemaCheck.requireCurrent(store, database: configuration.database, before: "replay --check")
            } else {
                // It writes the read models this build ships, so it migrates; but a database without
                // the event tables has no history to fold (a mistyped PostgreSQL database or
                // schema), and must not be given a schema by a replay.
                try await SchemaCheck.requireEvents(store, database: configuration.database, before: "replay")
                // Only when this build's migrations are missing: a database a newer build migrated
                // (rolled back to this one) has them all, and migrate would stop at the newer ones.
                if try await !store.pendingMigrations().isEmpty {
                    try await store.migrate()
                }
            }
            let replayer = LedgerReplayer(store: store)
            let onProgress: @Sendable (LedgerReplayer.Progress) -> Void = { step in
                switch step.phase {
                case .folding:
                    progress.update(done: step.events, total: step.totalEvents, unit: "events")
                case .swapping(let documents):
                    progress.finish(saying: "writing \(documents) documents in place of the live read models (one transaction)...")
                case .comparing(let documents):
                    progress.finish(saying: "comparing \(documents) documents with the live read models...")
                }
            }
            return check ? try await replayer.check(progress: onProgress) : try await replayer.rebuild(progress: onProgress)
        }
        print("\(configuration.database.located): folded \(report.events) events into \(report.documents) documents (subledger \(SubledgerVersion.current))")
        guard check else {
            print("read models rebuilt and swapped in")
            return
        }
        if report.differences.isEmpty {
            print("read models match a rebuild from the events")
            return
        }
        // The differences are the report, so a saved report holds them; the error line says where they are.
        for difference in report.differences { print("difference: \(difference)") }
        print("\(report.differences.count) read-model document(s) differ from a rebuild")
        printError("Error: \(report.differences.count) read-model document(s) differ from a rebuild (listed on standard output)")
        if report.appendedSinceFold > 0 {
            printError(
                "\(report.appendedSinceFold) event(s) were appended while the check ran (is subledger serve ingesting?): "
                    + "the differences may be theirs; run the check again with ingestion stopped"
            )
        }
        throw ExitCode(1)
    }
}
