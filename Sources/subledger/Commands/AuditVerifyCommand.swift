import ArgumentParser
import EventStore
import Foundation
import Logging

/// `subledger audit verify`: walks every stream's hash chain and reports the first broken link of each.
///
/// The report, broken links included, goes to standard output, so a saved report holds the
/// findings; exit status 0 when every chain is intact, 1 when any link is broken.
struct AuditVerifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Recompute every stream's hash chain and report broken links (exit 1 if any)."
    )

    @OptionGroup var options: ConfigOptions

    func run() async throws {
        let configuration = try options.load(needsSecrets: false)
        let logger = ProcessLogger.make(level: configuration.logLevel)
        let progress = ProgressPrinter(label: "audit")
        // A failed read ends the line too, so its error starts on a fresh one.
        defer { progress.finish() }
        let report = try await StoreRunner.withStore(configuration.database, logger: logger, mustExist: true, origin: configuration.databaseOrigin) { store in
            try await SchemaCheck.requireEvents(store, database: configuration.database, before: "audit verify")
            return try await store.audit { step in
                progress.update(done: step.events, total: step.totalEvents, unit: "events")
            }
        }
        progress.finish()
        print("\(configuration.database.located): checked \(report.events) events in \(report.streams) streams (subledger \(SubledgerVersion.current))")
        if report.isIntact {
            print("all hash chains are intact")
            return
        }
        for chainBreak in report.breaks {
            print("broken link: \(chainBreak)")
        }
        print("\(report.breaks.count) stream(s) have a broken hash chain")
        // Also where an error is looked for, when standard output goes to a file.
        printError("Error: \(report.breaks.count) stream(s) have a broken hash chain (the links are listed on standard output)")
        throw ExitCode(1)
    }
}
