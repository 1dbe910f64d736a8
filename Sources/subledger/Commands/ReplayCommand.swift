import ArgumentParser
import EventStore
import Ledger

/// `subledger replay`: rebuilds every read model from the events, or with `--check` compares.
struct ReplayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Rebuild the read models from the events and swap them in (--check: compare only, exit 1 on any difference).",
        discussion: "Rebuild while no ingestion runs: events appended during the fold are not in the rebuilt read models."
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
        let report = try await StoreRunner.withStore(configuration.database, logger: logger, readOnly: check) { store in
            if check {
                // A check changes nothing, so it needs no write rights: a schema behind is reported.
                try await SchemaCheck.requireCurrent(store, before: "replay --check")
            } else {
                try await store.migrate()
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
        print("folded \(report.events) events into \(report.documents) documents")
        guard check else {
            print("read models rebuilt and swapped in")
            return
        }
        if report.differences.isEmpty {
            print("read models match a rebuild from the events")
            return
        }
        for difference in report.differences { printError("difference: \(difference)") }
        printError("\(report.differences.count) read-model document(s) differ from a rebuild")
        throw ExitCode(1)
    }
}
