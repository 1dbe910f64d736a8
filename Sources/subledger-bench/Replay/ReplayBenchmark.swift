import ArgumentParser
import EventStore
import Foundation
import Ledger
import Logging

/// `subledger-bench replay`: generates subscription lifecycles as events in a fresh PostgreSQL schema,
/// then folds all of them into fresh read models (what `subledger replay` does) and prints events/s.
struct ReplayBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Measure replay throughput: fold N generated events from PostgreSQL into fresh read models."
    )

    @OptionGroup var database: BenchDatabaseOptions

    @Option(help: "How many events to generate and fold.")
    var events = 1_000_000

    @Option(help: "Events per subscription chain.")
    var perChain = 40

    @Option(help: "Length of each event's raw payload string.")
    var rawBytes = 1024

    @Option(help: "How many times to fold and swap the same events (later rounds show the spread).")
    var rounds = 1

    func run() async throws {
        let logger = BenchSchema.quietLogger
        let (settings, schema) = try await BenchSchema.fresh(url: database.url, prefix: "replay", poolSize: 10, logger: logger)
        let store = PostgresEventStore(settings: settings, logger: logger)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await store.run() }
            defer { group.cancelAll() }
            try await store.migrate()
            try await generate(into: store)
            let stored = try await store.eventCount()
            Self.say("replay benchmark: \(stored) events in \(stored / perChain) chains, raw payload \(rawBytes) bytes, schema \(schema)")
            for _ in 0..<max(1, rounds) {
                let start = ContinuousClock.now
                let (documents, folded) = try await LedgerReplayer(store: store, pageSize: 5000).fold()
                let foldTime = Self.seconds(ContinuousClock.now - start)
                Self.say(String(format: "fold: %d events into %d documents in %.2fs = %.0f events/s", folded, documents.count, foldTime, Double(folded) / foldTime))
                let swapStart = ContinuousClock.now
                try await store.replaceProjections(with: documents, foldedEvents: folded)
                let swapTime = Self.seconds(ContinuousClock.now - swapStart)
                Self.say(String(format: "swap: wrote %d documents in %.2fs; fold + swap = %.0f events/s", documents.count, swapTime, Double(folded) / (foldTime + swapTime)))
            }
        }
    }

    /// Appends lifecycles: per chain a purchase, renewals and renewal-info changes, `perChain` events.
    private func generate(into store: PostgresEventStore) async throws {
        let chains = max(1, events / perChain)
        let raw = String(repeating: "e", count: rawBytes)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let start = ContinuousClock.now
        let workers = 8
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<workers {
                group.addTask {
                    var chain = worker
                    while chain < chains {
                        let original = String(2_000_000_000 + chain)
                        var batch: [NewEvent] = []
                        for index in 0..<perChain {
                            let purchase = Int64(1_767_225_600_000) + Int64(index) * 2_592_000_000
                            let fact: AppleFact
                            if index.isMultiple(of: 3) {
                                fact = AppleFact(raw: raw, notificationType: "DID_CHANGE_RENEWAL_STATUS", renewals: [
                                    RenewalObservation(originalTransactionId: original, autoRenewStatus: index % 2 == 0,
                                                       autoRenewProductId: "pro.monthly", productId: "pro.monthly",
                                                       isInBillingRetryPeriod: false, environment: "Production", assertedAt: purchase + 1000),
                                ])
                            } else {
                                fact = AppleFact(raw: raw, notificationType: "DID_RENEW", transactions: [
                                    TransactionObservation(transactionId: "\(original)-\(index)", originalTransactionId: original,
                                                           productId: "pro.monthly", bundleId: "com.example.app", type: ProductType.autoRenewable,
                                                           purchaseDate: purchase, expiresDate: purchase + 2_592_000_000,
                                                           environment: "Production", assertedAt: purchase),
                                ])
                            }
                            batch.append(NewEvent(
                                type: LedgerEventType.notificationV2, data: try encoder.encode(fact),
                                metadata: Data(#"{"source":"bench"}"#.utf8), dedupeKey: "bench:\(original):\(index)"
                            ))
                        }
                        _ = try await store.append(to: LedgerEventType.chainStream(original), batch, expectedVersion: .noStream)
                        chain += workers
                    }
                }
            }
            try await group.waitForAll()
        }
        Self.say(String(format: "generated %d events in %.1fs", chains * perChain, Self.seconds(ContinuousClock.now - start)))
    }

    /// Writes a line at once, even into a file or pipe (where `print` buffers until exit), so a
    /// watcher such as a profiler sees each phase as it starts.
    static func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
