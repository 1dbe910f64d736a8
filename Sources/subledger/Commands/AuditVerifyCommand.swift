import AppStore
import ArgumentParser
import EventStore
import Foundation
import Ledger
import Logging

/// `subledger audit verify`: walks every stream's hash chain and reports the first broken link of
/// each, then verifies every signed fact's recorded text again and checks its decoded fields.
///
/// The report, findings included, goes to standard output, so a saved report holds them; exit
/// status 0 when every chain is intact and every signed fact matches its text, 1 otherwise.
struct AuditVerifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Recompute every stream's hash chain and check every signed fact against Apple's signed text (exit 1 on any finding)."
    )

    @OptionGroup var options: ConfigOptions

    @Option(name: .long, help: "Also check against a checkpoint an earlier audit wrote: each stream's event at the recorded version must still have the recorded hash.")
    var checkpoint: String?

    @Option(name: .long, help: "Write each intact stream's version and head hash to this file (when the audit finds nothing), to keep where the database's operators cannot change it.")
    var writeCheckpoint: String?

    func run() async throws {
        let configuration = try options.load(needsSecrets: false)
        let logger = ProcessLogger.make(level: configuration.logLevel)
        let check: SignedFactCheck
        do {
            check = SignedFactCheck(verifier: try LedgerFactory.makeVerifier(configuration, auditing: true))
        } catch let error as ConfigurationError {
            throw ConfigOptions.exit(error)
        }
        // Read before the database is opened: a file that is not a checkpoint is the command line's fault.
        let expected = try Self.readCheckpoint(checkpoint)
        let progress = ProgressPrinter(label: "audit")
        // A failed read ends the line too, so its error starts on a fresh one.
        defer { progress.finish() }
        let (report, facts) = try await StoreRunner.withStore(configuration.database, logger: logger, mustExist: true, origin: configuration.databaseOrigin) { store in
            try await SchemaCheck.requireEvents(store, database: configuration.database, before: "audit verify")
            let report = try await store.audit(against: expected) { step in
                progress.update(done: step.events, total: step.totalEvents, unit: "events")
            }
            progress.finish()
            let signatures = ProgressPrinter(label: "signed facts")
            defer { signatures.finish() }
            let facts = try await Self.checkSignedFacts(store, check) { done in
                signatures.update(done: done, total: report.events, unit: "events")
            }
            return (report, facts)
        }
        print("\(configuration.database.located): checked \(report.events) events in \(report.streams) streams (subledger \(SubledgerVersion.current))")
        if report.events == 0 {
            // An empty ledger passes every check; said, since a copy made without its -wal file or a
            // mistyped path looks like this.
            print("the ledger holds no events")
        }
        if let checkpoint {
            print("checked against the checkpoint in \(checkpoint) (\(expected.streams.count) streams)")
        }
        if report.isIntact {
            print("all hash chains are intact" + (checkpoint == nil ? "" : " and match the checkpoint"))
        }
        for chainBreak in report.breaks {
            print("broken link: \(chainBreak)")
        }
        print("\(facts.matched) signed facts match Apple's signed text")
        if facts.unchecked > 0 {
            print("\(facts.unchecked) signed facts could not be checked, for the configuration, not the event (the first: \(facts.firstUnchecked ?? "-"))")
        }
        for finding in facts.findings {
            print("signed fact differs: \(finding)")
        }
        if facts.untrustedChains > 0 {
            // Run without serve's configuration (another directory, no --config), every fact signed
            // by a test or sandbox PKI reads like this, which looks like tampering.
            print(
                "note: \(facts.untrustedChains) of them are untrusted_chain: the chain in the stored text does not lead to a root this audit trusts (Apple Root CA - G3, and \(configuration.trustedRoots.count) file(s) in apple.trusted_roots); if serve trusts other roots, run the audit with its configuration (--config FILE), else the stored chain was changed"
            )
        }
        let broken = "\(report.breaks.count) stream(s) have a broken hash chain" + (checkpoint == nil ? "" : " or differ from the checkpoint")
        if !report.isIntact {
            print(broken)
        }
        let differing = "\(facts.findings.count) signed fact(s) do not match Apple's signed text"
        if !facts.findings.isEmpty {
            print(differing)
        }
        if let writeCheckpoint {
            if report.isIntact && facts.findings.isEmpty {
                let file = CheckpointFile(report.checkpoint, database: configuration.database.located, events: report.events, at: Date())
                try file.write(to: writeCheckpoint)
                print("wrote a checkpoint of \(report.checkpoint.streams.count) streams to \(writeCheckpoint); keep it where the database's operators cannot change it")
            } else {
                print("no checkpoint written: the audit has findings")
            }
        }
        guard report.isIntact && facts.findings.isEmpty else {
            // Also where an error is looked for, when standard output goes to a file.
            let parts = (report.isIntact ? [] : [broken]) + (facts.findings.isEmpty ? [] : [differing])
            printError("Error: \(parts.joined(separator: ", and ")) (listed on standard output)")
            throw ExitCode(1)
        }
    }

    /// The checkpoint at `path`, or an empty one without it; a file that is not a checkpoint exits 64.
    static func readCheckpoint(_ path: String?) throws -> AuditCheckpoint {
        guard let path else { return AuditCheckpoint() }
        do {
            return try CheckpointFile.read(path).checkpoint()
        } catch {
            printError("Error: cannot use --checkpoint \(path): \(error.reason)")
            throw ExitCode(64)
        }
    }

    /// What the signed-fact pass found.
    struct SignedFacts: Sendable {
        var matched = 0
        var unchecked = 0
        var firstUnchecked: String?
        var findings: [String] = []
        /// Findings whose text no longer verifies for want of a trusted root.
        var untrustedChains = 0
    }

    /// Reads every event in log order and checks the signed ones.
    static func checkSignedFacts(
        _ store: any EventStore, _ check: SignedFactCheck, progress: @Sendable (Int) -> Void
    ) async throws -> SignedFacts {
        var result = SignedFacts()
        var cursor = EventCursor.start
        var done = 0
        while true {
            let page = try await store.readAll(after: cursor, limit: 500)
            guard !page.events.isEmpty else { break }
            for event in page.events {
                switch await check.check(event) {
                case .notSigned:
                    break
                case .matches:
                    result.matched += 1
                case .unchecked(let reason):
                    result.unchecked += 1
                    if result.firstUnchecked == nil { result.firstUnchecked = "position \(event.position): \(reason)" }
                case .differs(let what):
                    result.findings.append("position \(event.position) (\(event.type) in \(event.streamID)): \(what)")
                case .doesNotVerify(let code, let message):
                    if code == .untrustedChain { result.untrustedChains += 1 }
                    let what = code.map { "\($0.rawValue): \(message)" } ?? message
                    result.findings.append("position \(event.position) (\(event.type) in \(event.streamID)): its text no longer verifies: \(what)")
                }
            }
            done += page.events.count
            progress(done)
            cursor = page.next
        }
        return result
    }
}
