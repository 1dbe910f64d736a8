import ArgumentParser
import EventStore
import Foundation
import Logging
import PostgresNIO

/// `subledger-bench append`: single-event appends from concurrent tasks, each a ~2 KB JSON event with
/// a dedupe key in its own stream, as webhook ingestion does. Prints appends/s and latency percentiles.
struct AppendBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "append",
        abstract: "Measure single-event appends/s from concurrent tasks against PostgreSQL or SQLite."
    )

    @OptionGroup var database: BenchDatabaseOptions

    @Option(help: "Concurrent appending tasks.")
    var tasks = 16

    @Option(help: "Seconds to measure after warm-up.")
    var seconds = 10

    @Option(help: "Approximate JSON payload size in bytes.")
    var payloadBytes = 2048

    func run() async throws {
        let logger = BenchSchema.quietLogger
        if let url = database.url, case .sqlite(let path) = try DatabaseURL(url) {
            let store = try await SQLiteEventStore.open(path: path, logger: logger)
            try await store.migrate()
            try await measure(store, label: "sqlite \(path)")
            try await store.shutdown()
        } else {
            let (settings, schema) = try await BenchSchema.fresh(url: database.url, prefix: "bench", poolSize: max(tasks, 2) + 1, logger: logger)
            let store = PostgresEventStore(settings: settings, logger: logger)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await store.run() }
                defer { group.cancelAll() }
                try await store.migrate()
                try await measure(store, label: "postgres (schema \(schema))")
            }
        }
    }

    private func measure(_ store: any EventStore, label: String) async throws {
        let payload = Self.payload(bytes: payloadBytes)
        print("append benchmark: \(label), \(tasks) tasks, ~\(payload.count)-byte events, \(seconds)s")
        // Warm up connections and caches.
        _ = try await run(store, payload: payload, duration: .seconds(2), prefix: "warm")
        let start = ContinuousClock.now
        let latencies = try await run(store, payload: payload, duration: .seconds(seconds), prefix: "run")
        let elapsed = ContinuousClock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let sorted = latencies.sorted()
        func percentile(_ p: Double) -> Double {
            sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
        }
        print(String(format: "appends: %d in %.2fs = %.0f appends/s", sorted.count, seconds, Double(sorted.count) / seconds))
        print(String(format: "latency ms: p50 %.2f, p99 %.2f, max %.2f", percentile(0.50), percentile(0.99), sorted.last ?? 0))
    }

    /// Appends until `duration` passes; returns each append's latency in milliseconds.
    private func run(_ store: any EventStore, payload: Data, duration: Duration, prefix: String) async throws -> [Double] {
        let deadline = ContinuousClock.now + duration
        let runID = UUID().uuidString.prefix(8)
        return try await withThrowingTaskGroup(of: [Double].self) { group in
            for task in 0..<tasks {
                group.addTask {
                    var latencies: [Double] = []
                    var index = 0
                    while ContinuousClock.now < deadline {
                        let key = "\(prefix)-\(runID)-\(task)-\(index)"
                        let event = NewEvent(type: "bench.appended", data: payload, metadata: Data(#"{"source":"bench"}"#.utf8), dedupeKey: key)
                        let start = ContinuousClock.now
                        _ = try await store.append(to: "subscription-\(key)", event, expectedVersion: .noStream)
                        let elapsed = ContinuousClock.now - start
                        latencies.append(Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000)
                        index += 1
                    }
                    return latencies
                }
            }
            var all: [Double] = []
            for try await latencies in group { all += latencies }
            return all
        }
    }

    /// A JSON object shaped like a stored notification, padded to about `bytes`.
    static func payload(bytes: Int) -> Data {
        let filler = String(repeating: "x", count: max(0, bytes - 200))
        let body: [String: Any] = [
            "notificationType": "DID_RENEW",
            "notificationUUID": UUID().uuidString,
            "signedDate": 1_763_700_000_000,
            "raw": filler,
            "decoded": ["originalTransactionId": "2000000123", "productId": "pro.monthly", "expiresDate": 1_766_300_000_000],
        ]
        return (try? JSONSerialization.data(withJSONObject: body, options: [.sortedKeys])) ?? Data("{}".utf8)
    }
}
